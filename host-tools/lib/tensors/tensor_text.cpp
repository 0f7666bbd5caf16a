// Tensor value formatting (see tensor_text.hpp).
#include "tensor_text.hpp"

#include <charconv>
#include <cstring>

#include "runtime/dtype/half.hpp"

namespace tpu {
namespace {

constexpr size_t kSummarizeAbove = 1000;
constexpr int64_t kEdgeItems = 3;

template <class T>
std::string shortest(T value) {
  char buffer[64];
  const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

template <class T>
T load(const HostTensor& tensor, size_t index) {
  T value;
  std::memcpy(&value, tensor.bytes.data() + index * sizeof(T), sizeof(T));
  return value;
}

void append_dimension(const HostTensor& tensor, size_t dim, size_t first, bool summarize, std::string& out) {
  size_t stride = 1;
  for (size_t d = dim + 1; d < tensor.dims.size(); ++d) stride *= static_cast<size_t>(tensor.dims[d]);
  const int64_t size = tensor.dims[dim];
  out += '[';
  for (int64_t i = 0; i < size; ++i) {
    if (summarize && size > 2 * kEdgeItems && i == kEdgeItems) {
      out += "... ";
      i = size - kEdgeItems;
    }
    if (i > 0 && out.back() != ' ') out += ' ';
    const size_t at = first + static_cast<size_t>(i) * stride;
    if (dim + 1 == tensor.dims.size()) out += element_text(tensor, at);
    else append_dimension(tensor, dim + 1, at, summarize, out);
  }
  out += ']';
}

}  // namespace

std::string element_text(const HostTensor& tensor, size_t index) {
  switch (tensor.dtype) {
    case rt::DType::kF32: return shortest(load<float>(tensor, index));
    case rt::DType::kF64: return shortest(load<double>(tensor, index));
    case rt::DType::kBF16: return shortest(rt::to_float(rt::BFloat16{load<uint16_t>(tensor, index)}));
    case rt::DType::kF16: return shortest(rt::to_float(rt::Float16{load<uint16_t>(tensor, index)}));
    case rt::DType::kI8: return std::to_string(load<int8_t>(tensor, index));
    case rt::DType::kI32: return std::to_string(load<int32_t>(tensor, index));
    case rt::DType::kU32: return std::to_string(load<uint32_t>(tensor, index));
    case rt::DType::kI64: return std::to_string(load<int64_t>(tensor, index));
    case rt::DType::kBool: return load<uint8_t>(tensor, index) ? "True" : "False";
    case rt::DType::kC64: {
      const float imaginary = load<float>(tensor, 2 * index + 1);
      return "(" + shortest(load<float>(tensor, 2 * index)) + (imaginary < 0 ? "" : "+") + shortest(imaginary) + "j)";
    }
  }
  return "?";
}

std::string tensor_text(const HostTensor& tensor) {
  if (tensor.dims.empty()) return element_text(tensor, 0);
  if (tensor.num_elements() == 0) return "[]";
  std::string out;
  append_dimension(tensor, 0, 0, tensor.num_elements() > kSummarizeAbove, out);
  return out;
}

}  // namespace tpu
