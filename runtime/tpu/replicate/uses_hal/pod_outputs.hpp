// After a replicate over a pod of boards, every board holds every replica's outputs, as TF's single
// client sees them all: core 0 of each board trades its own replicas' outputs with the other boards
// (two host calls of the reserved ".pod" function, kind "rows": first every output's dtype and shape,
// then their bytes) and adds the other boards' replicas' outputs to the result, in pod memory.
#pragma once
#include "runtime/tpu/mesh/pod_membership.hpp"
#include "runtime/tpu/mesh/pod_placement.hpp"
#include "runtime/tpu/replicate/replicate.hpp"

namespace rt::tpu {

Status gather_pod_outputs(const PodPlacement& placement, unsigned num_tasks, ReplicateResult& result);

}  // namespace rt::tpu
