// The mailbox mesh: one SpscRing for every ordered pair of cores, plus the sleep/notify handshake
// that lets a core with nothing to do sleep on its doorbell without missing a message.
//
// Handshake (a Dekker pair, so both sides use sequentially consistent operations):
//   waiter:   sleeping[me] = 1; fence; re-check its rings; doorbell_wait(...); sleeping[me] = 0
//   notifier: publish (ring index store); fence; if sleeping[peer]: doorbell_ring(peer)
// Either the waiter's re-check sees the published index, or the notifier sees sleeping = 1 and
// rings; a wake-up can be spurious but never lost. Doorbells are only rung for sleeping cores, so
// a busy pipeline costs no interrupts.
#pragma once
#include "hal/affinity.hpp"
#include "hal/core.hpp"
#include "hal/doorbell.hpp"
#include "hal/event.hpp"
#include "hal/time.hpp"
#include "ring.hpp"
#include "hal/support/status.hpp"
#include "runtime/sync/wait.hpp"

namespace rt::mailbox {

// The ring carrying bytes from core `from` to core `to`.
SpscRing& ring(unsigned from, unsigned to);

// After publishing to (or consuming from) a ring shared with `peer`: wake `peer` if it sleeps.
void notify(unsigned peer);
// notify() for every core whose bit is set in `cores` (one fence for all of them).
void notify_cores(uint32_t cores);

// Polls `ready()` a few dozen times without reading the clock; whether it became true. A stalled
// transfer tries this before its deadline check: a peer's answer is often only a cache-line
// transfer away, and then the fewer instructions between seeing it and acting on it, the shorter
// the round trip.
template <class Ready>
bool poll_briefly(Ready ready) {
  for (unsigned i = 0; i < 64; ++i) {
    if (ready()) return true;
    hal::cpu_relax();
  }
  return false;
}

// Polls `ready()` for spin_ns(), then sleeps on this core's doorbell until notified or until
// `deadline_ns`. Returns when `ready()` may have become true (the caller re-checks) or at the
// deadline; it never returns false positives about the deadline: check time_ns() to tell.
template <class Ready>
void wait_for_progress(Ready ready, uint64_t deadline_ns);

// Point-to-point byte streams between the calling core and a peer, in three flavours:
//   polling: try_send / try_receive move what they can now and return the byte count;
//   timed:   send / receive move all bytes or fail after timeout_ns without progress, with an error
//            naming this core, the peer and how far the transfer got;
//   blocking: the timed calls with the default timeout (a wait is never unbounded).
size_t try_send(unsigned to, const void* data, size_t bytes);
size_t try_receive(unsigned from, void* out, size_t bytes);
Status send(unsigned to, const void* data, size_t bytes, uint64_t timeout_ns = kDefaultWaitTimeoutNs);
Status receive(unsigned from, void* out, size_t bytes, uint64_t timeout_ns = kDefaultWaitTimeoutNs);

// How long a waiting core polls before it sleeps on its doorbell: long enough to cover a peer's
// quick answer without a doorbell, short enough not to burn a core (or an emulator's time slice).
//
// Measured on a loaded 2-CPU host: longer polls (up to several milliseconds, by one core at a time,
// after ringing a sleeping peer) did not pay. Two threads of a pod that wake each other up in turn
// (each sleeping just before the other's answer, tens of microseconds a message) were sharing ONE
// CPU, placed there by the OS next to a busy process on the other; polling only keeps the peer off
// that CPU. With more cores than CPUs, a longer poll costs a peer its CPU outright: bench-allreduce
// at 4 host cores on 2 CPUs ran 4 KiB all-reduces 50x slower. A host that needs its cores to run
// in parallel wants each core thread on a CPU of its own (the benchmarks pin themselves).
inline constexpr uint64_t kSpinNs = 20000;
// A core pinned to a CPU of its own (hal::core_has_own_cpu: `tpu run --bind-to core`, the
// benchmarks) polls ten times longer: no other core needs its CPU, and a sleeping peer's wake-up
// costs tens of microseconds on a VM, which a data-parallel step pays at every all-reduce a
// preemption made one replica late for. Measured (train-digits MLP, 2 host cores bound, this 2-CPU
// VM, tpu on the same CPUs): median 255k samples/s over 6 runs at 20 us, 378k over 11 at 200 us.
inline constexpr uint64_t kOwnCpuSpinNs = 200000;
inline uint64_t spin_ns() { return hal::core_has_own_cpu() ? kOwnCpuSpinNs : kSpinNs; }

// ---------------------------------------------------------------------------- implementation

namespace detail {
void announce_sleep(bool sleeping);
}

template <class Ready>
void wait_for_progress(Ready ready, uint64_t deadline_ns) {
  uint64_t spin_end = 0;  // the clock is read only once the first 64 polls found nothing
  for (unsigned i = 1;; ++i) {
    if (ready()) return;
    hal::cpu_relax();
    if (i % 64 != 0) continue;
    const uint64_t now = hal::time_ns();
    if (spin_end == 0) spin_end = now + spin_ns();
    else if (now >= spin_end) break;
  }
  detail::announce_sleep(true);
  if (!ready()) hal::doorbell_wait(deadline_ns);
  detail::announce_sleep(false);
}

}  // namespace rt::mailbox
