// HostTensor: a tensor the host tools own (dtype, shape, row-major little-endian bytes: exactly a
// .npy file's data section), as assembled from link chunks or produced by a host function. Text
// travels on the link as an int8 vector of UTF-8 bytes (runtime/link/protocol/host_result.hpp).
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "runtime/dtype/dtype.hpp"
#include "runtime/dtype/dtype_of.hpp"

namespace tpu {

struct HostTensor {
  rt::DType dtype = rt::DType::kF32;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;

  static HostTensor scalar_f32(float value);
  static HostTensor text(std::string_view text);
  // A tensor of shape `dims` holding `values` (row-major); std::invalid_argument if their counts differ.
  template <rt::HasDType T>
  static HostTensor of(std::vector<int64_t> dims, const std::vector<T>& values);
  // A scalar of T.
  template <rt::HasDType T>
  static HostTensor scalar(T value) { return of<T>({}, {value}); }

  // The elements as T; `what` names the tensor in the error if the dtype is not T's
  // (std::invalid_argument, which a host function's caller receives as INVALID_ARGUMENT).
  template <rt::HasDType T>
  std::vector<T> values(const std::string& what = "tensor") const;

  size_t num_elements() const;
  bool is_text() const { return dtype == rt::DType::kI8 && dims.size() == 1; }
  std::string as_text() const { return std::string(bytes.begin(), bytes.end()); }
  // Element i as a double (complex64: its real part).
  double element(size_t index) const;
  // "float32[2, 3]"
  std::string describe() const;
};

// Thrown by values<T>() on a dtype mismatch (a host function's caller gets INVALID_ARGUMENT).
struct DTypeMismatch : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

template <rt::HasDType T>
HostTensor HostTensor::of(std::vector<int64_t> dims, const std::vector<T>& values) {
  HostTensor tensor;
  tensor.dtype = rt::kDTypeOf<T>;
  tensor.dims = std::move(dims);
  if (tensor.num_elements() != values.size())
    throw std::invalid_argument("HostTensor::of: shape " + tensor.describe() + " holds " +
                                std::to_string(tensor.num_elements()) + " elements, given " +
                                std::to_string(values.size()));
  tensor.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(tensor.bytes.data(), values.data(), tensor.bytes.size());
  return tensor;
}

template <rt::HasDType T>
std::vector<T> HostTensor::values(const std::string& what) const {
  static_assert(!std::is_same_v<T, bool>, "std::vector<bool> has no element storage: read bool tensors as int8_t");
  if (dtype != rt::kDTypeOf<T>)
    throw DTypeMismatch(what + " is " + describe() + ", expected " + rt::dtype_name(rt::kDTypeOf<T>));
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

}  // namespace tpu
