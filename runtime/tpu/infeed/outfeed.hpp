// Outfeed for device code: TF's tpu_ops.outfeed_enqueue_tuple (TF_BEHAVIOUR.md section 4). Any core,
// inside a replicated computation or not, sends a tuple of tensors to the host on queue `queue`;
// `tpu run --outfeed-dir DIR` saves element e of the core's t-th tuple on that queue as
// c<core>_q<queue>_t<t>_e<e>.npy. The call blocks its core until the host has taken the tuple or the
// timeout passes; without a host link it fails with UNAVAILABLE.
//
//   RT_RETURN_IF_ERROR(rt::tpu::outfeed_enqueue_tuple(0, {loss, weights}));
#pragma once
#include "runtime/link/protocol/host_call.hpp"

namespace rt::tpu {

// `tuple` may be a braced list: outfeed_enqueue_tuple(0, {x, y}).
Status outfeed_enqueue_tuple(uint16_t queue, Span<const Tensor> tuple,
                             uint64_t timeout_ns = link::kDefaultHostCallTimeoutNs);

}  // namespace rt::tpu
