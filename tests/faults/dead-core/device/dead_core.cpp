// dead-core: the firmware withholds core 2's start (a test image). The expected outcome is a boot
// failure naming core 2 within the boot timeout; the app itself must never run.
#include "firmware/app.hpp"

namespace {

rt::Status run(const firmware::CoreContext& context) {
  return rt::internal_error("core {} ran the app although core 2 never started", context.core);
}

}  // namespace

const firmware::App firmware::kApp = {"dead-core", "test image: core 2 is never started", run, nullptr, 1u << 2,
                                    /*boot_timeout_ms=*/2500};
