// Launch slots, the worker loop and core 0's side of the launch protocol.
#include "runtime/tpu/replicate/executor.hpp"

#include "hal/support/new.hpp"
#include "hal/time.hpp"
#include "runtime/mailbox/mailbox.hpp"
#include "runtime/trace/core_status.hpp"

namespace rt::tpu {
namespace {

struct alignas(kCacheLineSize) LaunchSlot {
  Atomic<uint32_t> requested{0};  // launches core 0 published to this core
  Atomic<uint32_t> completed{0};  // launches this core finished
  Atomic<uint32_t> serving{0};    // 1 while the core is inside serve()
  Atomic<uint32_t> stops{0};      // stop requests (one per program)
  Atomic<uint32_t> failed_stop{0};  // the stop request (1st, 2nd, ...) that ended a failed program, if any
  Launch launch;
  Status status;
  ReplicaOutputs outputs;
};

// The slots live in zeroed memory (.bss) and are constructed at start-up, by the boot core's static
// constructors before any other core runs: as an initialised array (their members' defaults are
// not all zero bits) they were 400 KiB of every image's data, which a raspi3b chainloader receives
// at the UART's pace.
alignas(LaunchSlot) unsigned char slot_storage[sizeof(LaunchSlot) * hal::kMaxCores];

struct ConstructSlots {
  ConstructSlots() {
    for (unsigned core = 0; core < hal::kMaxCores; ++core) new (slot_storage + core * sizeof(LaunchSlot)) LaunchSlot();
  }
} construct_slots;

LaunchSlot* const slots = reinterpret_cast<LaunchSlot*>(slot_storage);
uint32_t programs_served[hal::kMaxCores];  // each core's own count of stop requests it honoured

bool idle(const LaunchSlot& slot) {
  return slot.completed.load(MemoryOrder::kAcquire) == slot.requested.load(MemoryOrder::kRelaxed);
}

// Waits for ready() with the mailbox's spin-then-sleep, until deadline_ns. The caller's notifier
// must call mailbox::notify after publishing what ready() reads. While it sleeps, the core's status
// record shows `activity`; a wait that times out stays there as the core's last given-up wait.
template <class Ready>
bool wait_ready(Ready ready, uint64_t deadline_ns, const trace::CoreActivity& activity) {
  trace::WaitMark wait;
  while (!ready()) {
    if (hal::time_ns() >= deadline_ns) {
      if (ready()) return true;
      wait.gave_up();
      return false;
    }
    if (!wait.marked()) wait.mark(hal::core_id(), activity);
    mailbox::wait_for_progress(ready, deadline_ns);
  }
  return true;
}

uint64_t milliseconds(uint64_t nanoseconds) { return nanoseconds / hal::kNanosPerMilli; }

// "replica 2", or "logical core 1 of replica 2" when the replica spans several cores.
using TaskName = FixedString<48>;
TaskName task_name(const Launch& launch) {
  TaskName name;
  if (launch.placement.num_logical_cores > 1) format_to(name, "logical core {} of ", launch.placement.logical_core);
  format_to(name, "replica {}", launch.placement.replica);
  return name;
}

}  // namespace

Result<Launch*> acquire_launch(unsigned core, uint64_t timeout_ns) {
  LaunchSlot& slot = slots[core];
  if (core == 0) return &slot.launch;
  const uint64_t deadline = hal::deadline_after(timeout_ns);
  if (!wait_ready([&] { return slot.serving.load(MemoryOrder::kAcquire) != 0; }, deadline,
                  trace::await_core_activity(core, 0, "")))
    return deadline_exceeded("core {} timed out after {} ms waiting for core {} to serve launches (every core must "
                             "call rt::tpu::run_program)",
                             hal::core_id(), milliseconds(timeout_ns), core);
  if (!wait_ready([&] { return idle(slot); }, deadline,
                  trace::await_core_activity(core, slot.launch.placement.replica, slot.launch.computation.name)))
    return deadline_exceeded("core {} timed out after {} ms waiting for core {} to finish its previous launch ({} of "
                             "'{}')",
                             hal::core_id(), milliseconds(timeout_ns), core, task_name(slot.launch).view(),
                             slot.launch.computation.name);
  return &slot.launch;
}

void publish_launch(unsigned core) {
  LaunchSlot& slot = slots[core];
  slot.requested.store(slot.requested.load(MemoryOrder::kRelaxed) + 1, MemoryOrder::kRelease);
  mailbox::notify(core);
}

Status await_completion(unsigned core, ReplicaOutputs& outputs, uint64_t deadline_ns, uint64_t timeout_ns) {
  LaunchSlot& slot = slots[core];
  if (!wait_ready([&] { return idle(slot); }, deadline_ns,
                  trace::await_core_activity(core, slot.launch.placement.replica, slot.launch.computation.name)))
    return deadline_exceeded("core {} timed out after {} ms waiting for core {} to complete {} of '{}'",
                             hal::core_id(), milliseconds(timeout_ns), core, task_name(slot.launch).view(),
                             slot.launch.computation.name);
  outputs = slot.outputs;
  return slot.status;
}

bool core_idle(unsigned core) { return idle(slots[core]); }

Status serve(uint64_t idle_timeout_ns) {
  const unsigned me = hal::core_id();
  LaunchSlot& slot = slots[me];
  const auto launched = [&] {
    return slot.requested.load(MemoryOrder::kAcquire) != slot.completed.load(MemoryOrder::kRelaxed);
  };
  const auto stopped = [&] { return slot.stops.load(MemoryOrder::kAcquire) != programs_served[me]; };
  slot.serving.store(1, MemoryOrder::kRelease);
  mailbox::notify(0);
  for (;;) {
    if (!wait_ready([&] { return launched() || stopped(); }, hal::deadline_after(idle_timeout_ns),
                    trace::idle_activity(0))) {
      slot.serving.store(0, MemoryOrder::kSeqCst);
      // Core 0 may have published a launch just before seeing serving == 0: run it rather than
      // leave it behind for a later program (its views would be stale by then).
      if (launched()) {
        slot.serving.store(1, MemoryOrder::kRelease);
        continue;
      }
      return deadline_exceeded("core {} timed out after {} ms waiting for a launch or the stop request from core 0 "
                               "(is the program stuck?)",
                               me, milliseconds(idle_timeout_ns));
    }
    if (launched()) {
      const uint32_t request = slot.requested.load(MemoryOrder::kAcquire);
      slot.status = run_launch(slot.launch, slot.outputs);
      slot.completed.store(request, MemoryOrder::kRelease);
      mailbox::notify(0);
      continue;
    }
    const uint32_t stop = ++programs_served[me];
    slot.serving.store(0, MemoryOrder::kRelease);
    if (slot.failed_stop.load(MemoryOrder::kRelaxed) == stop)  // written before the stop (release/acquire on stops)
      return Status::error(StatusCode::kCancelled, "{}", kStoppedAfterFailedProgram);
    return Status::ok();
  }
}

Status stop_serving(unsigned cores, uint64_t timeout_ns, bool program_failed) {
  Status first_error;
  for (unsigned core = 1; core < cores; ++core) {
    LaunchSlot& slot = slots[core];
    if (!wait_ready([&] { return idle(slot); }, hal::deadline_after(timeout_ns),
                    trace::await_core_activity(core, slot.launch.placement.replica, slot.launch.computation.name)) &&
        first_error.is_ok())
      first_error = deadline_exceeded("core {} timed out after {} ms waiting for core {} to finish {} of '{}' "
                                      "before stopping it",
                                      hal::core_id(), milliseconds(timeout_ns), core, task_name(slot.launch).view(),
                                      slot.launch.computation.name);
    // A worker that never finished counts as the program failing too: no worker reads PASS after it.
    if (program_failed || !first_error.is_ok())
      slot.failed_stop.store(slot.stops.load(MemoryOrder::kRelaxed) + 1, MemoryOrder::kRelaxed);
    slot.stops.fetch_add(1, MemoryOrder::kRelease);
    mailbox::notify(core);
  }
  return first_error;
}

}  // namespace rt::tpu
