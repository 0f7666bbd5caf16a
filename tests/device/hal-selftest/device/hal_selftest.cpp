// hal-selftest: checks the HAL services the runtime builds on, on every core at once.
//   1. time: time_ns() is monotonic and delay_ns() waits at least as long as asked
//   2. doorbell timeout: with nobody ringing, doorbell_wait() returns false, not before its deadline
//   3. doorbell ring: a token travels core 0 -> 1 -> ... -> 0 for kLaps laps; each hop writes the
//      lap number into the receiver's slot, then rings it; the receiver must be woken by the ring
//      and must see the value written before it (the doorbell orders memory)
#include "firmware/app.hpp"
#include "hal/core.hpp"
#include "hal/doorbell.hpp"
#include "hal/time.hpp"
#include "hal/support/atomic.hpp"
#include "hal/support/new.hpp"
#include "runtime/sync/barrier.hpp"

namespace {

using firmware::CoreContext;
using rt::Status;

constexpr unsigned kLaps = 50;
constexpr uint64_t kDelayNs = 2 * hal::kNanosPerMilli;
constexpr uint64_t kTimeoutProbeNs = 20 * hal::kNanosPerMilli;
constexpr uint64_t kHopTimeoutNs = 20000 * hal::kNanosPerMilli;

struct alignas(rt::kCacheLineSize) Slot {
  uint32_t lap;  // plain memory: published by the doorbell, not by an atomic
};
Slot slots[hal::kMaxCores];

alignas(rt::SpinBarrier) unsigned char barrier_storage[sizeof(rt::SpinBarrier)];
rt::SpinBarrier* barrier;

Status check_time() {
  const uint64_t start = hal::time_ns();
  uint64_t previous = start;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t now = hal::time_ns();
    if (now < previous) return rt::internal_error("time_ns went backwards: {} after {}", now, previous);
    previous = now;
  }
  const uint64_t before = hal::time_ns();
  hal::delay_ns(kDelayNs);
  const uint64_t waited = hal::time_ns() - before;
  if (waited < kDelayNs) return rt::internal_error("delay_ns({}) returned after {} ns", kDelayNs, waited);
  return Status::ok();
}

Status check_doorbell_timeout(const CoreContext& context) {
  while (hal::doorbell_poll()) {
  }
  const uint64_t start = hal::time_ns();
  if (hal::doorbell_wait(start + kTimeoutProbeNs))
    return rt::internal_error("core {}: doorbell_wait reported a ring nobody sent", context.core);
  const uint64_t waited = hal::time_ns() - start;
  if (waited < kTimeoutProbeNs)
    return rt::internal_error("core {}: doorbell_wait timed out after {} ns, before its {} ns deadline", context.core,
                              waited, kTimeoutProbeNs);
  return Status::ok();
}

Status receive(const CoreContext& context, uint32_t lap, unsigned from) {
  if (!hal::doorbell_wait(hal::time_ns() + kHopTimeoutNs))
    return rt::deadline_exceeded("core {} waited {} ms for core {}'s doorbell on lap {}", context.core,
                                 kHopTimeoutNs / hal::kNanosPerMilli, from, lap);
  const uint32_t seen = __atomic_load_n(&slots[context.core].lap, __ATOMIC_RELAXED);
  if (seen != lap)
    return rt::internal_error("core {} woken by core {} on lap {} but read lap {}", context.core, from, lap, seen);
  return Status::ok();
}

void send(unsigned to, uint32_t lap) {
  __atomic_store_n(&slots[to].lap, lap, __ATOMIC_RELAXED);
  hal::doorbell_ring(to);  // the doorbell itself must make the store visible first
}

Status check_doorbell_ring(const CoreContext& context) {
  const unsigned next = (context.core + 1) % context.cores;
  const unsigned previous = (context.core + context.cores - 1) % context.cores;
  for (uint32_t lap = 1; lap <= kLaps; ++lap) {
    if (context.core == 0) {
      send(next, lap);
      RT_RETURN_IF_ERROR(receive(context, lap, previous));
    } else {
      RT_RETURN_IF_ERROR(receive(context, lap, previous));
      send(next, lap);
    }
  }
  return Status::ok();
}

void init(unsigned cores) { barrier = new (barrier_storage) rt::SpinBarrier(cores); }

Status run(const CoreContext& context) {
  RT_RETURN_IF_ERROR(check_time());
  RT_RETURN_IF_ERROR(barrier->arrive());
  RT_RETURN_IF_ERROR(check_doorbell_timeout(context));
  RT_RETURN_IF_ERROR(barrier->arrive());  // no core rings before every core has drained its doorbell
  RT_RETURN_IF_ERROR(check_doorbell_ring(context));
  return Status::ok();
}

}  // namespace

const firmware::App firmware::kApp = {"hal-selftest", "time, doorbell timeouts and a doorbell token ring", run, init};
