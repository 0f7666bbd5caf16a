// Tensor views: row-major construction, element addressing, slices and transposes.
#include "tensor.hpp"

namespace rt {

Tensor Tensor::contiguous(DType dtype, const Shape& shape, void* data) {
  Tensor tensor;
  tensor.dtype = dtype;
  tensor.shape = shape;
  tensor.data = static_cast<uint8_t*>(data);
  int64_t stride = 1;
  for (unsigned d = shape.rank; d-- > 0;) {
    tensor.strides[d] = stride;
    stride *= shape.dims[d];
  }
  return tensor;
}

bool Tensor::is_contiguous() const {
  int64_t stride = 1;
  for (unsigned d = shape.rank; d-- > 0;) {
    if (shape.dims[d] != 1 && strides[d] != stride) return false;
    stride *= shape.dims[d];
  }
  return true;
}

uint8_t* Tensor::at(Span<const int64_t> index) const {
  int64_t offset = 0;
  for (unsigned d = 0; d < shape.rank; ++d) offset += index[d] * strides[d];
  return data + offset * static_cast<int64_t>(element_size());
}

Result<Tensor> Tensor::slice(unsigned dim, int64_t begin, int64_t end) const {
  if (dim >= shape.rank) return invalid_argument("slice dimension {} is out of range for rank {}", dim, shape.rank);
  if (begin < 0 || begin > end || end > shape.dims[dim])
    return invalid_argument("slice [{}, {}) is outside dimension {} of size {}", begin, end, dim, shape.dims[dim]);
  Tensor view = *this;
  view.data = data + begin * strides[dim] * static_cast<int64_t>(element_size());
  view.shape.dims[dim] = end - begin;
  view.shape.real[dim] = end - begin;
  return view;
}

Result<Tensor> Tensor::transpose(Span<const unsigned> permutation) const {
  if (permutation.size() != shape.rank)
    return invalid_argument("transpose permutation has {} entries for a tensor of rank {}", permutation.size(), shape.rank);
  bool used[kMaxRank] = {};
  Tensor view = *this;
  for (unsigned i = 0; i < shape.rank; ++i) {
    const unsigned from = permutation[i];
    if (from >= shape.rank || used[from])
      return invalid_argument("transpose permutation {} is not a permutation of 0..{}", permutation, shape.rank - 1);
    used[from] = true;
    view.shape.dims[i] = shape.dims[from];
    view.shape.real[i] = shape.real[from];
    view.strides[i] = strides[from];
  }
  return view;
}

}  // namespace rt
