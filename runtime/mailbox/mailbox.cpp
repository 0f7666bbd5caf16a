// Storage for the mailbox mesh (kMaxCores^2 rings, about 4 MiB) and the per-core sleep flags.
#include "mailbox.hpp"

namespace rt::mailbox {
namespace {

SpscRing rings[hal::kMaxCores][hal::kMaxCores];

struct alignas(kCacheLineSize) SleepFlag {
  Atomic<uint32_t> sleeping{0};
};
SleepFlag sleep_flags[hal::kMaxCores];

}  // namespace

SpscRing& ring(unsigned from, unsigned to) { return rings[from][to]; }

void notify(unsigned peer) {
  atomic_fence(MemoryOrder::kSeqCst);  // order the index store before reading the peer's flag
  if (sleep_flags[peer].sleeping.load(MemoryOrder::kRelaxed) != 0) hal::doorbell_ring(peer);
}

namespace detail {

void announce_sleep(bool sleeping) {
  // seq_cst store + the fence in notify() form the Dekker pair described in mailbox.hpp.
  sleep_flags[hal::core_id()].sleeping.store(sleeping ? 1 : 0, MemoryOrder::kSeqCst);
  atomic_fence(MemoryOrder::kSeqCst);  // the flag store must precede the re-check's index loads
}

}  // namespace detail
}  // namespace rt::mailbox
