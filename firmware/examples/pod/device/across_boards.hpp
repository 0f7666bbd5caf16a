// The collectives that cross a pod's boards by the members' own buffers (runtime/collectives/
// cross_board.hpp): all_reduce of mean and of the 16-bit floats, reduce_scatter, all_to_all and
// collective_permute, run by a replicate over every core of the pod and checked on every board.
#pragma once
#include "firmware/tpu_pod.hpp"

namespace pod_app {

// Core 0 logs "POD across boards: ... on N replicas: every output checked, hash H": every replica's
// outputs equal what one board of N cores computes (the same kernels over the same inputs in group
// order, and values worked out by hand where the order shows); H hashes them all (FNV-1a), so a pod
// and one board of as many cores can be compared bit for bit.
rt::Status check_collectives_across_boards(const rt::tpu::PodMembership& pod, unsigned cores);

}  // namespace pod_app
