// ConsoleLock: a re-entrant spinlock over the console so lines from different cores never
// interleave. A core that holds the lock too long (it died while printing) is overtaken after a
// bounded wait: garbled output beats a silent hang. The bound is generous: under QEMU with many
// vCPUs on few host CPUs (and other tests running), a live holder's thread can be descheduled for
// hundreds of milliseconds while the waiters spin, and overtaking it then garbles a healthy run.
#include "hal/console.hpp"
#include "hal/core.hpp"
#include "hal/event.hpp"
#include "hal/time.hpp"
#include "hal/support/atomic.hpp"

namespace hal {
namespace {

constexpr unsigned kNoOwner = ~0u;
constexpr uint64_t kMaxWaitNs = 5000 * kNanosPerMilli;

rt::Atomic<unsigned> owner{kNoOwner};
unsigned depth[kMaxCores];  // nesting per core: a core only ever touches its own entry

}  // namespace

ConsoleLock::ConsoleLock() {
  const unsigned me = core_id();
  if (owner.load(rt::MemoryOrder::kRelaxed) == me) {
    ++depth[me];
    return;
  }
  const uint64_t give_up = time_ns() + kMaxWaitNs;
  for (;;) {
    unsigned expected = kNoOwner;
    if (owner.compare_exchange(expected, me, rt::MemoryOrder::kAcquire)) break;
    if (time_ns() > give_up) {
      owner.store(me, rt::MemoryOrder::kRelaxed);  // overtake a stuck holder
      break;
    }
    cpu_relax();
  }
  depth[me] = 1;
}

ConsoleLock::~ConsoleLock() {
  const unsigned me = core_id();
  if (depth[me] == 0 || --depth[me] != 0) return;
  // Release only if still the owner: a holder that was overtaken must not free the lock it lost.
  unsigned expected = me;
  owner.compare_exchange(expected, kNoOwner, rt::MemoryOrder::kRelease);
}

}  // namespace hal
