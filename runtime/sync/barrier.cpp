// SpinBarrier: the last arriver resets the count and flips the phase (release); the others wait for
// the flip (acquire), so everything written before arrive() is visible after it on every core.
#include "barrier.hpp"

#include "hal/event.hpp"

namespace rt {

Status SpinBarrier::arrive(uint64_t timeout_ns) {
  const unsigned my_phase = phase_.load(MemoryOrder::kAcquire);
  arrived_mask_.fetch_or(1u << hal::core_id(), MemoryOrder::kRelaxed);
  if (count_.fetch_add(1, MemoryOrder::kAcqRel) + 1 == participants_) {
    count_.store(0, MemoryOrder::kRelaxed);
    arrived_mask_.store(0, MemoryOrder::kRelaxed);
    phase_.store(my_phase + 1, MemoryOrder::kRelease);
    hal::send_event();
    return Status::ok();
  }
  Status status = wait_until([&] { return phase_.load(MemoryOrder::kAcquire) != my_phase; }, "barrier", timeout_ns);
  if (status.is_ok()) return status;
  const uint32_t arrived = arrived_mask_.load(MemoryOrder::kRelaxed);
  FixedString<128> missing;
  for (unsigned core = 0; core < participants_ && core < 32; ++core)
    if (!(arrived & (1u << core))) format_to(missing, " {}", core);
  return deadline_exceeded("core {} timed out at a barrier of {} cores; cores not arrived:{}", hal::core_id(),
                           participants_, missing);
}

}  // namespace rt
