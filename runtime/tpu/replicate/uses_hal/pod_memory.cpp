// Arena marks for every core of the pod, released when the scope ends.
#include "runtime/tpu/replicate/pod_memory.hpp"

#include "runtime/tpu/replicate/executor.hpp"
#include "runtime/tensor/hbm.hpp"

namespace rt::tpu {

PodMemoryScope::PodMemoryScope(unsigned cores) : cores_(cores) {
  for (unsigned core = 0; core < cores_; ++core) marks_[core] = hbm_of(core).used();
}

PodMemoryScope::~PodMemoryScope() {
  for (unsigned core = 0; core < cores_; ++core)
    if (core == hal::core_id() || core_idle(core)) hbm_of(core).release_to(marks_[core]);
}

}  // namespace rt::tpu
