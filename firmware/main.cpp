// Firmware entry: boot banner, bring every core up, run the app on all cores concurrently, collect
// one verdict per core, and exit with the run's status (0 only if every core passed).
#include "app.hpp"
#include "bringup.hpp"
#include "hal/board.hpp"
#include "hal/boot.hpp"
#include "hal/core.hpp"
#include "hal/doorbell.hpp"
#include "hal/event.hpp"
#include "hal/power.hpp"
#include "hal/time.hpp"
#include "link_service.hpp"
#include "trace_service.hpp"
#include "runtime/log/log.hpp"
#include "hal/support/atomic.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/trace/core_status.hpp"
#include "runtime/trace/core_trace.hpp"
#include "runtime/sync/wait.hpp"

namespace firmware {
namespace {

constexpr uint64_t kBootTimeoutNs = 10000 * hal::kNanosPerMilli;
constexpr uint64_t kAppTimeoutNs = 120000 * hal::kNanosPerMilli;

struct alignas(rt::kCacheLineSize) Verdict {
  rt::Atomic<bool> done{false};
  rt::Atomic<bool> passed{false};
};
Verdict verdicts[hal::kMaxCores];
rt::Atomic<bool> go{false};

rt::Status run_traced(unsigned core) {
  RT_TRACE_SCOPE("app", rt::trace::Category::kRun);
  return kApp.run(CoreContext{core, hal::core_count()});
}

void run_app(unsigned core) {
  rt::trace::set_core_activity(core, rt::trace::running_activity());
  rt::Status status = run_traced(core);
  const rt::Status settled = link_service_settle();  // a host function called without waiting, still in flight
  if (status.is_ok() && !settled.is_ok()) status = settled;
  rt::trace::set_core_done(core, static_cast<uint32_t>(status.code()));
  if (status.is_ok())
    rt::log_info("PASS {}", kApp.name);
  else
    rt::log_error("FAIL {}: {}: {}", kApp.name, rt::status_code_name(status.code()), status.message());
  link_service_report(core, status);
  verdicts[core].passed.store(status.is_ok(), rt::MemoryOrder::kRelaxed);
  verdicts[core].done.store(true, rt::MemoryOrder::kRelease);
  hal::send_event();
}

// A core with nothing left to do sleeps on its doorbell for good, waking once a second. It does not
// spin on WFE: QEMU never halts a vCPU there, so a parked core held a host CPU until the board exited
// (and under -icount the one TCG thread: a 50 ms timeout on the boot core took 6 s of real time).
constexpr uint64_t kParkSliceNs = 1000 * hal::kNanosPerMilli;

[[noreturn]] void park() {
  for (;;) (void)hal::doorbell_wait(hal::time_ns() + kParkSliceNs);
}

void secondary_main(unsigned core) {
  check_in(core);
  const rt::Status started = rt::wait_until([] { return go.load(rt::MemoryOrder::kAcquire); },
                                            "the boot core's go signal", kBootTimeoutNs * 2);
  if (!started.is_ok()) {
    rt::log_error("{}", started.message());
    park();
  }
  run_app(core);
  park();
}

// Boot core: waits for every core's verdict; a core that never finishes is named.
int collect_verdicts() {
  int status = hal::kExitPass;
  for (unsigned core = 0; core < hal::core_count(); ++core) {
    const rt::Status finished = rt::wait_until([core] { return verdicts[core].done.load(rt::MemoryOrder::kAcquire); },
                                               "an app verdict", kAppTimeoutNs);
    if (!finished.is_ok()) {
      rt::log_error("core {} did not finish {}: {}", core, kApp.name, finished.message());
      return hal::kExitTimeout;
    }
    if (!verdicts[core].passed.load(rt::MemoryOrder::kRelaxed)) status = hal::kExitFail;
  }
  return status;
}

}  // namespace
}  // namespace firmware

extern "C" void firmware_main() {
  using namespace firmware;
  rt::log_info("tpu-pod runtime on {}: {} cores, app {} ({})", hal::board::name(), hal::core_count(), kApp.name,
               kApp.description);
  check_in(0);
  rt::Status status = start_secondary_cores(secondary_main);
  const uint64_t boot_timeout_ns = kApp.boot_timeout_ms ? kApp.boot_timeout_ms * hal::kNanosPerMilli : kBootTimeoutNs;
  if (status.is_ok()) status = wait_for_all_cores(boot_timeout_ns);
  if (!status.is_ok()) {
    rt::log_error("BOOT FAIL: {}", status.message());
    hal::power_exit(hal::kExitTimeout);
  }
  rt::log_info("all {} cores up", hal::core_count());
  rt::hbm_init(hal::core_count());
  rt::trace::set_core_status_cores(hal::core_count());
  rt::trace::start_core_trace();
  link_service_start(kApp.name);
  if (kApp.init != nullptr) kApp.init(hal::core_count());
  go.store(true, rt::MemoryOrder::kRelease);
  hal::send_event();
  run_app(0);
  const int exit_status = collect_verdicts();
  trace_service_upload(hal::core_count());
  link_service_finish();
  rt::log_info("exit {}", exit_status);
  hal::power_exit(exit_status);
}
