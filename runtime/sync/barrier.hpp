// SpinBarrier: a reusable barrier for cores 0..participants-1, with a timeout that
// names the cores that did not arrive.
#pragma once
#include "hal/support/atomic.hpp"
#include "hal/support/status.hpp"
#include "runtime/sync/wait.hpp"

namespace rt {

class SpinBarrier {
 public:
  explicit SpinBarrier(unsigned participants) : participants_(participants) {}

  // Every participant calls arrive() once per phase. Returns DEADLINE_EXCEEDED naming the missing
  // cores if the phase does not complete in time.
  Status arrive(uint64_t timeout_ns = kDefaultWaitTimeoutNs);

 private:
  const unsigned participants_;
  alignas(kCacheLineSize) Atomic<unsigned> count_{0};
  alignas(kCacheLineSize) Atomic<unsigned> phase_{0};
  alignas(kCacheLineSize) Atomic<uint32_t> arrived_mask_{0};  // cores in the current phase, for errors
};

}  // namespace rt
