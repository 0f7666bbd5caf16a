// Tensor: a typed, strided view of elements in some core's memory. It owns nothing; arenas own
// memory. Strides are in elements, so slicing and transposing are views that move no data.
// Typed access reads like TF's numpy(): t.scalar<float>(), t.at<int32_t>(i, j), t.values<float>()[k];
// asking for a type that is not the tensor's dtype, an index out of range, or values() of a strided
// view is a programming error that stops the board with a PANIC naming it (rt::panic).
#pragma once
#include "runtime/dtype/dtype.hpp"
#include "runtime/dtype/dtype_of.hpp"
#include "hal/support/panic.hpp"
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

  // The element at (i, j, ...): one index per dimension.
  template <HasDType T, class... Index>
  T& at(Index... index) const {
    check_type(kDTypeOf<T>);
    const int64_t indices[] = {static_cast<int64_t>(index)..., 0};
    if (sizeof...(Index) != shape.rank) panic("Tensor::at<T>(...): the number of indices is not the tensor's rank");
    int64_t offset = 0;
    for (unsigned d = 0; d < shape.rank; ++d) {
      if (indices[d] < 0 || indices[d] >= shape.dims[d]) panic("Tensor::at<T>(...): index out of range");
      offset += indices[d] * strides[d];
    }
    return reinterpret_cast<T*>(data)[offset];
  }
  // The one element of a scalar (or one-element) tensor.
  template <HasDType T>
  T& scalar() const {
    check_type(kDTypeOf<T>);
    if (num_elements() != 1) panic("Tensor::scalar<T>(): the tensor has more (or fewer) than one element");
    return *reinterpret_cast<T*>(data);
  }
  // The elements of a contiguous tensor, row-major.
  template <HasDType T>
  Span<T> values() const {
    check_type(kDTypeOf<T>);
    if (!is_contiguous()) panic("Tensor::values<T>(): a strided view has no flat element array (copy it first)");
    return Span<T>(reinterpret_cast<T*>(data), num_elements());
  }

 private:
  void check_type(DType wanted) const {
    if (wanted != dtype) panic("typed tensor access with an element type that is not the tensor's dtype");
  }
};

}  // namespace rt
