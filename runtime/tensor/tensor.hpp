// Tensor: a typed, strided view of elements in some core's memory. It owns nothing; arenas own
// memory. Strides are in elements, so slicing and transposing are views that move no data.
#pragma once
#include "runtime/dtype/dtype.hpp"
#include "shape.hpp"

namespace rt {

struct Tensor {
  DType dtype = DType::kF32;
  Shape shape;
  int64_t strides[kMaxRank] = {};
  uint8_t* data = nullptr;

  // A row-major view of `data`.
  static Tensor contiguous(DType dtype, const Shape& shape, void* data);
  bool is_contiguous() const;
  size_t element_size() const { return dtype_size(dtype); }
  size_t num_elements() const { return static_cast<size_t>(shape.num_elements()); }
  // Address of the element at `index` (one entry per dimension, each in range).
  uint8_t* at(Span<const int64_t> index) const;
  // Elements [begin, end) of dimension `dim`, as a view.
  Result<Tensor> slice(unsigned dim, int64_t begin, int64_t end) const;
  // Dimensions reordered: result dimension i is this tensor's dimension permutation[i].
  Result<Tensor> transpose(Span<const unsigned> permutation) const;
};

}  // namespace rt
