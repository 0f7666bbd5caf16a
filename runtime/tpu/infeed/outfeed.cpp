// Outfeed over the board's link endpoint (outfeed.hpp).
#include "runtime/tpu/infeed/outfeed.hpp"

namespace rt::tpu {

Status outfeed_enqueue_tuple(uint16_t queue, Span<const Tensor> tuple, uint64_t timeout_ns) {
  return link::outfeed(queue, tuple, timeout_ns);
}

}  // namespace rt::tpu
