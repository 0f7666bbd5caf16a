// fault-null: core 3 dereferences a null pointer (a test image). The expected outcome is a fault
// report naming core 3 and address 0, and a failing exit status; the other cores wait meanwhile.
#include "firmware/app.hpp"
#include "hal/time.hpp"

namespace {

constexpr unsigned kFaultingCore = 3;

rt::Status run(const firmware::CoreContext& context) {
  if (context.cores <= kFaultingCore)
    return rt::Status::error(rt::StatusCode::kFailedPrecondition, "fault-null needs at least {} cores, has {}",
                             kFaultingCore + 1, context.cores);
  if (context.core == kFaultingCore) {
    volatile uint32_t* null_pointer = nullptr;
    *null_pointer = 0xdead;  // must fault
    return rt::internal_error("core {} wrote through a null pointer without faulting", context.core);
  }
  hal::delay_ns(30000 * hal::kNanosPerMilli);  // the fault must end the run long before this
  return rt::internal_error("core {}: the run was not ended by core {}'s fault", context.core, kFaultingCore);
}

}  // namespace

const firmware::App firmware::kApp = {"fault-null", "test image: null dereference on core 3", run};
