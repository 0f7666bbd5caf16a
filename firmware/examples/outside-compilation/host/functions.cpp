// outside-compilation's host half: the app's own host functions (beside tpu's built-ins), called by
// every replica of the device half over the link on every board.
//   weighted_sum(x: float32[n], w: int32[n]) -> (float32 sum of x*w in index order, int32 calling core)
//   must_be_positive(x: float32[...]) -> x, or OUT_OF_RANGE naming the first element that is not > 0
//   throws(text) -> an exception of the C++ library with that text (arrives as INTERNAL)
#include <stdexcept>

#include "host-tools/lib/functions/app_host.hpp"

TPU_HOST_FUNCTION(weighted_sum, call) {
  const std::vector<float> x = call.values<float>(0);
  const std::vector<int32_t> w = call.values<int32_t>(1);
  if (x.size() != w.size())
    throw tpu::HostError(rt::StatusCode::kInvalidArgument, "weighted_sum: x has " + std::to_string(x.size()) +
                                                                " elements, w has " + std::to_string(w.size()));
  float sum = 0;
  for (size_t i = 0; i < x.size(); ++i) sum += x[i] * static_cast<float>(w[i]);
  return std::vector<tpu::HostTensor>{tpu::HostTensor::scalar<float>(sum),
                                      tpu::HostTensor::scalar<int32_t>(static_cast<int32_t>(call.core()))};
}

TPU_HOST_FUNCTION(must_be_positive, call) {
  const std::vector<float> x = call.values<float>(0);
  for (size_t i = 0; i < x.size(); ++i)
    if (!(x[i] > 0))
      throw tpu::HostError(rt::StatusCode::kOutOfRange,
                           "must_be_positive: x[" + std::to_string(i) + "] = " + std::to_string(x[i]) + " is not positive");
  return call.tensor(0);
}

TPU_HOST_FUNCTION(throws, call) { throw std::runtime_error(call.text()); }
