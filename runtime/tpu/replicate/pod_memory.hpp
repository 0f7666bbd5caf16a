// PodMemoryScope: gives back, when it ends, everything allocated in the arenas of cores 0..cores-1
// while it lived: padded inputs, replica outputs and collective scratch of the replicate calls made
// inside it, and the program's own tensors. Use it on core 0 around a group of replicate calls
// whose results are no longer needed afterwards. A core still running a (timed-out) launch keeps its
// memory, so nothing is freed under a running replica.
#pragma once
#include "hal/core.hpp"
#include "hal/support/types.hpp"

namespace rt::tpu {

class PodMemoryScope {
 public:
  explicit PodMemoryScope(unsigned cores);
  ~PodMemoryScope();
  PodMemoryScope(const PodMemoryScope&) = delete;
  PodMemoryScope& operator=(const PodMemoryScope&) = delete;

 private:
  unsigned cores_;
  size_t marks_[hal::kMaxCores];
};

}  // namespace rt::tpu
