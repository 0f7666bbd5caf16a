// Per-core launch numbers and "left the launch" words (cancellation.hpp).
#include "runtime/collectives/cancellation.hpp"

#include "hal/core.hpp"
#include "hal/support/atomic.hpp"
#include "runtime/mailbox/mailbox.hpp"

namespace rt {
namespace {

// A left word: the launch's number times kCoreSlots plus the core whose failure began the leaving,
// so one atomic store says both (a launch number of 58 bits does not wrap).
constexpr uint64_t kCoreSlots = 64;
static_assert(hal::kMaxCores <= kCoreSlots);
static_assert(hal::kMaxCores < 32);  // a board's cores are woken with one 32-bit mask
constexpr unsigned kNoCore = ~0u;

struct alignas(kCacheLineSize) CoreLaunch {
  uint64_t launch = 0;              // the launch this core runs a part of (0: none); only this core writes
  unsigned first_failed = kNoCore;  // the failure a collective of this core stopped for; only this core writes
  Atomic<uint64_t> left{0};         // written by this core as it leaves a launch; read by every core
};
CoreLaunch cores_launch[hal::kMaxCores];

}  // namespace

LaunchScope::LaunchScope(uint64_t launch_id) {
  cores_launch[hal::core_id()].launch = launch_id;
  cores_launch[hal::core_id()].first_failed = kNoCore;
}

LaunchScope::~LaunchScope() { cores_launch[hal::core_id()].launch = 0; }

void leave_launch(const Status& error) {
  const unsigned me = hal::core_id();
  CoreLaunch& mine = cores_launch[me];
  if (mine.launch == 0) return;
  const bool stopped_for_another = error.code() == StatusCode::kCancelled && mine.first_failed != kNoCore;
  mine.left.store(mine.launch * kCoreSlots + (stopped_for_another ? mine.first_failed : me), MemoryOrder::kRelease);
  const uint32_t board = (uint32_t{1} << hal::core_count()) - 1;  // core_count() <= kMaxCores < 32
  mailbox::notify_cores(board & ~(1u << me));  // a core asleep in a collective wakes to see it
}

void stopping_for(unsigned failed_core) { cores_launch[hal::core_id()].first_failed = failed_core; }

bool left_launch(unsigned peer) {
  const uint64_t launch = cores_launch[hal::core_id()].launch;
  return launch != 0 && cores_launch[peer].left.load(MemoryOrder::kAcquire) / kCoreSlots == launch;
}

Status cancelled_waiting_for(unsigned peer, StringView what) {
  const unsigned me = hal::core_id();
  const unsigned first = static_cast<unsigned>(cores_launch[peer].left.load(MemoryOrder::kAcquire) % kCoreSlots);
  cores_launch[me].first_failed = first;
  if (first == peer)
    return Status::error(StatusCode::kCancelled, "core {} stopped waiting in {}: core {} failed in the same launch", me,
                         what, peer);
  return Status::error(StatusCode::kCancelled,
                       "core {} stopped waiting in {}: core {} stopped (core {} failed in the same launch)", me, what,
                       peer, first);
}

}  // namespace rt
