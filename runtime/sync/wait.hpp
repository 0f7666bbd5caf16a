// wait_until(): the one way the runtime waits for another core. Spins with WFE between checks and
// gives up at a deadline with a Status naming the waiting core and what it waited for.
#pragma once
#include "hal/core.hpp"
#include "hal/event.hpp"
#include "hal/time.hpp"
#include "hal/support/status.hpp"

namespace rt {

// Default bound on any inter-core wait, in nanoseconds of board time.
inline constexpr uint64_t kDefaultWaitTimeoutNs = 10000 * hal::kNanosPerMilli;

// Calls done() until it returns true; on timeout returns DEADLINE_EXCEEDED:
// "core <me> timed out after <ms> ms waiting for <what>".
template <class Predicate>
Status wait_until(Predicate done, StringView what, uint64_t timeout_ns = kDefaultWaitTimeoutNs) {
  if (done()) return Status::ok();
  const uint64_t deadline = hal::deadline_after(timeout_ns);
  for (;;) {
    hal::wait_for_event();
    if (done()) return Status::ok();
    if (hal::time_ns() >= deadline)
      return deadline_exceeded("core {} timed out after {} ms waiting for {}", hal::core_id(),
                               timeout_ns / hal::kNanosPerMilli, what);
  }
}

}  // namespace rt
