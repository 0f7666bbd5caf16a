// Test helper: small conveniences the unit tests share for runtime tensors and statuses.
#pragma once
#include <cstring>
#include <initializer_list>
#include <string>

#include "hal/support/status.hpp"
#include "runtime/tensor/tensor.hpp"

namespace test_helpers {

inline std::string message(const rt::Status& status) { return std::string(status.message().data(), status.message().size()); }

inline rt::Shape shape_of(std::initializer_list<int64_t> dims) {
  return *rt::Shape::make(rt::Span<const int64_t>(dims.begin(), dims.size()));
}

// All dimensions reversed, as a strided view (no copy): exercises non-contiguous inputs/outputs.
inline rt::Tensor reversed_view(const rt::Tensor& t) {
  unsigned permutation[rt::kMaxRank];
  for (unsigned d = 0; d < t.shape.rank; ++d) permutation[d] = t.shape.rank - 1 - d;
  return *t.transpose(rt::Span<const unsigned>(permutation, t.shape.rank));
}

// The shape with its dimensions in reverse order (the shape reversed_view gives).
inline rt::Shape reversed_shape(const rt::Shape& shape) {
  int64_t dims[rt::kMaxRank];
  for (unsigned d = 0; d < shape.rank; ++d) dims[d] = shape.dims[shape.rank - 1 - d];
  return *rt::Shape::make(rt::Span<const int64_t>(dims, shape.rank));
}

inline uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

}  // namespace test_helpers
