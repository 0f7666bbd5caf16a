// The host's infeed dataset length (infeed_steps.hpp), asked over the link.
#include "runtime/tpu/infeed/infeed_steps.hpp"

#include "hal/support/format.hpp"

namespace rt::tpu {

Result<int64_t> infeed_steps(uint16_t queue, uint64_t timeout_ns) {
  int64_t steps = 0;
  FixedString<8> queue_text;
  format_to(queue_text, "{}", queue);
  const link::HostResult results[] = {link::HostResult::tensor(Tensor::contiguous(DType::kI64, Shape(), &steps))};
  RT_RETURN_IF_ERROR(link::host_call("infeed_steps", queue_text.view(), {}, results, timeout_ns));
  if (steps < 0) return internal_error("the host says the infeed dataset has {} steps", steps);
  return steps;
}

}  // namespace rt::tpu
