// @NAME@, host half: functions the device calls by name, run on your PC by `tpu run` (which
// builds them into this app's own tool). Tensors come in and go back; throwing
// tpu::HostError sends a status back to the calling replica instead.
#include "host-tools/lib/functions/app_host.hpp"

// scale(x: float32[...]) -> 2 * x + 1, same shape.
TPU_HOST_FUNCTION(scale, call) {
  std::vector<float> x = call.values<float>(0);
  for (float& value : x) value = 2.0f * value + 1.0f;
  return tpu::HostTensor::of(call.tensor(0).dims, x);
}
