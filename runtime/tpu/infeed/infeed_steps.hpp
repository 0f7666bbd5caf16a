// How long the host's infeed dataset is, asked from device code: the host function infeed_steps
// (served by `tpu run --infeed QUEUE=...`, host-tools/lib/feeds/infeed_host_function.hpp) gives the number
// of tuples the host will stream on link queue `queue`, so a host program on the board can run one
// step per tuple.
#pragma once
#include "hal/support/result.hpp"
#include "hal/support/types.hpp"

namespace rt::link {

// The step count, or the host's error (no dataset on that queue, no host), or an INTERNAL error for
// a negative count.
Result<int64_t> infeed_steps(uint16_t queue, uint64_t timeout_ns);

}  // namespace rt::link
