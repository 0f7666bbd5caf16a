// wait_until(): the one way the runtime waits for another core. Spins with WFE between checks, then
// sleeps, and gives up at a deadline with a Status naming the waiting core and what it waited for.
#pragma once
#include "hal/core.hpp"
#include "hal/doorbell.hpp"
#include "hal/event.hpp"
#include "hal/time.hpp"
#include "hal/support/status.hpp"

namespace rt {

// Default bound on any inter-core wait, in nanoseconds of board time.
inline constexpr uint64_t kDefaultWaitTimeoutNs = 10000 * hal::kNanosPerMilli;

// A wait spins on WFE for its first kWaitSpinNs (a quick answer costs no sleep), then sleeps on the
// core's doorbell in slices of kWaitSliceNs, checking between them: at most a slice late on a wait
// that already took a millisecond. Sleeping matters under QEMU, which never halts a vCPU on WFE (it
// only yields to the next vCPU of its thread): a core spinning there holds a host CPU the working
// cores need, and under -icount it spends the one TCG thread's time and so the virtual clock.
inline constexpr uint64_t kWaitSpinNs = 1 * hal::kNanosPerMilli;
inline constexpr uint64_t kWaitSliceNs = 100000;  // 100 us

namespace detail {

// One pause of a wait that began at `start`. The doorbell's rings belong to the app (and the
// mailboxes), not to the wait: one that the sleep took is rung again, and the wait spins from then
// on (a pending ring would end every later sleep at once). Returns whether it may sleep next time.
inline bool pause_waiting(uint64_t start, uint64_t now, uint64_t deadline, bool may_sleep) {
  if (!may_sleep || now - start < kWaitSpinNs) {
    hal::wait_for_event();
    return may_sleep;
  }
  if (!hal::doorbell_wait(now + kWaitSliceNs < deadline ? now + kWaitSliceNs : deadline)) return true;
  hal::doorbell_ring(hal::core_id());
  return false;
}

}  // namespace detail

// Calls done() until it returns true; on timeout returns DEADLINE_EXCEEDED:
// "core <me> timed out after <ms> ms waiting for <what>".
template <class Predicate>
Status wait_until(Predicate done, StringView what, uint64_t timeout_ns = kDefaultWaitTimeoutNs) {
  if (done()) return Status::ok();
  const uint64_t start = hal::time_ns();
  const uint64_t deadline = hal::deadline_after(timeout_ns);
  bool may_sleep = true;
  for (uint64_t now = start;; now = hal::time_ns()) {
    if (now >= deadline)
      return deadline_exceeded("core {} timed out after {} ms waiting for {}", hal::core_id(),
                               timeout_ns / hal::kNanosPerMilli, what);
    may_sleep = detail::pause_waiting(start, now, deadline, may_sleep);
    if (done()) return Status::ok();
  }
}

}  // namespace rt
