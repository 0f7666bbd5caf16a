// How long the host's infeed dataset is, asked by the program on the board: the host function
// infeed_steps (served by `tpu run --infeed QUEUE=...`, host-tools/lib/feeds/infeed_host_function.hpp)
// gives the number of tuples the host will stream on queue `queue`, so the program can run one
// replicate step per tuple (TF's host program knows its dataset's length; here the host tells it).
//
//   const int64_t steps = RT_TRY(rt::tpu::infeed_steps(0));
#pragma once
#include "runtime/link/protocol/host_call.hpp"
#include "hal/support/result.hpp"
#include "hal/support/types.hpp"

namespace rt::tpu {

// The step count, or the host's error (no dataset on that queue, no host), or an INTERNAL error for
// a negative count.
Result<int64_t> infeed_steps(uint16_t queue, uint64_t timeout_ns = link::kDefaultHostCallTimeoutNs);

}  // namespace rt::tpu
