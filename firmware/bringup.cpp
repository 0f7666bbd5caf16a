// Core bring-up bookkeeping: per-core check-in flags (one cache line each) and the timed wait.
#include "bringup.hpp"

#include "app.hpp"
#include "hal/boot.hpp"
#include "hal/core.hpp"
#include "hal/event.hpp"
#include "hal/time.hpp"
#include "runtime/log/log.hpp"
#include "hal/support/atomic.hpp"

namespace firmware {
namespace {

struct alignas(rt::kCacheLineSize) CheckIn {
  rt::Atomic<bool> up{false};
};
CheckIn checked_in[hal::kMaxCores];

bool all_checked_in() {
  for (unsigned core = 0; core < hal::core_count(); ++core)
    if (!checked_in[core].up.load(rt::MemoryOrder::kAcquire)) return false;
  return true;
}

}  // namespace

rt::Status start_secondary_cores(void (*core_main)(unsigned core)) {
  for (unsigned core = 1; core < hal::core_count(); ++core) {
    if (kApp.withheld_cores & (1u << core)) {
      rt::log_warning("fault injection: core {} deliberately not started", core);
      continue;
    }
    const hal::StartError error = hal::start_core(core, core_main);
    if (error != hal::StartError::kNone)
      return rt::Status::error(rt::StatusCode::kUnavailable, "could not start core {}: {}", core,
                               hal::start_error_name(error));
  }
  return rt::Status::ok();
}

void check_in(unsigned core) {
  const uint64_t hardware_id = hal::this_core_hardware_id();
  rt::log_info("core {} up: hw id {:#x}, {}", core, hardware_id, hal::core_privilege());
  if (hardware_id != hal::core_hardware_id(core))
    rt::log_error("core {}: hardware id {:#x} differs from the board's CPU table ({:#x})", core, hardware_id,
                  hal::core_hardware_id(core));
  checked_in[core].up.store(true, rt::MemoryOrder::kRelease);
  hal::send_event();
}

rt::Status wait_for_all_cores(uint64_t timeout_ns) {
  const uint64_t deadline = hal::time_ns() + timeout_ns;
  while (!all_checked_in()) {
    if (hal::time_ns() >= deadline) {
      rt::FixedString<128> missing;
      for (unsigned core = 0; core < hal::core_count(); ++core)
        if (!checked_in[core].up.load(rt::MemoryOrder::kAcquire)) rt::format_to(missing, " {}", core);
      return rt::deadline_exceeded("cores that never started within {} ms:{}", timeout_ns / hal::kNanosPerMilli,
                                   missing);
    }
    hal::wait_for_event();
  }
  return rt::Status::ok();
}

}  // namespace firmware
