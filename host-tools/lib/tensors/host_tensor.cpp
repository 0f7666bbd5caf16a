// HostTensor construction, element access and description.
#include "host_tensor.hpp"

#include <cstring>

#include "runtime/dtype/half.hpp"

namespace tpu {
namespace {

template <class T>
T load(const std::vector<uint8_t>& bytes, size_t index) {
  T value;
  std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));
  return value;
}

}  // namespace

HostTensor HostTensor::scalar_f32(float value) {
  HostTensor tensor;
  tensor.dtype = rt::DType::kF32;
  tensor.bytes.resize(sizeof value);
  std::memcpy(tensor.bytes.data(), &value, sizeof value);
  return tensor;
}

HostTensor HostTensor::text(std::string_view text) {
  HostTensor tensor;
  tensor.dtype = rt::DType::kI8;
  tensor.dims = {static_cast<int64_t>(text.size())};
  tensor.bytes.assign(text.begin(), text.end());
  return tensor;
}

size_t HostTensor::num_elements() const {
  size_t count = 1;
  for (int64_t size : dims) count *= static_cast<size_t>(size);
  return count;
}

double HostTensor::element(size_t index) const {
  switch (dtype) {
    case rt::DType::kF32: return load<float>(bytes, index);
    case rt::DType::kF64: return load<double>(bytes, index);
    case rt::DType::kBF16: return rt::to_float(rt::BFloat16{load<uint16_t>(bytes, index)});
    case rt::DType::kF16: return rt::to_float(rt::Float16{load<uint16_t>(bytes, index)});
    case rt::DType::kI8: return load<int8_t>(bytes, index);
    case rt::DType::kI32: return load<int32_t>(bytes, index);
    case rt::DType::kU32: return load<uint32_t>(bytes, index);
    case rt::DType::kI64: return static_cast<double>(load<int64_t>(bytes, index));
    case rt::DType::kBool: return load<uint8_t>(bytes, index) != 0;
    case rt::DType::kC64: return load<float>(bytes, 2 * index);
  }
  return 0;
}

std::string HostTensor::describe() const {
  std::string text = rt::dtype_name(dtype);
  text += '[';
  for (size_t d = 0; d < dims.size(); ++d) text += (d ? ", " : "") + std::to_string(dims[d]);
  return text + ']';
}

}  // namespace tpu
