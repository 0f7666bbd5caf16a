// outside-compilation's host half of the declared functions (../host_api.hpp): the compiler checks
// each implementation against its declaration.
#include <string>
#include <vector>

#include "../host_api.hpp"
#include "host-tools/lib/functions/typed_host_function.hpp"

using outside_compilation_app::count_above;
using outside_compilation_app::require_non_negative;
using outside_compilation_app::scale;

TPU_HOST_FUNCTION_OF(scale, [](const tpu::HostTensor& x, float factor) {
  std::vector<float> values = x.values<float>("x");
  for (float& value : values) value *= factor;
  return tpu::HostTensor::of(x.dims, values);
});

TPU_HOST_FUNCTION_OF(count_above, [](const tpu::HostTensor& x, float threshold) {
  int32_t count = 0;
  for (const float value : x.values<float>("x")) count += value > threshold ? 1 : 0;
  return count;
});

TPU_HOST_FUNCTION_OF(require_non_negative, [](int64_t value) {
  if (value < 0)
    throw tpu::HostError(rt::StatusCode::kOutOfRange, "require_non_negative: " + std::to_string(value) + " < 0");
});
