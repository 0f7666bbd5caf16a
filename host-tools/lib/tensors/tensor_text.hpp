// Tensor values as text, the way tf.strings.format and tf.print show them: a scalar is its value
// ("1", "0.5", "-3", "True"), a tensor is nested brackets with spaces ("[[1 2] [3 4]]"); tensors
// of more than 1000 elements show the first and last 3 entries of each dimension with "..." between
// (TF's summarize=3). Floats print in their shortest round-trip form (float32 1.0 -> "1").
#pragma once
#include <string>

#include "host_tensor.hpp"

namespace tpu {

std::string element_text(const HostTensor& tensor, size_t index);
std::string tensor_text(const HostTensor& tensor);

}  // namespace tpu
