// reshape: TF's shape inference, NumPy's no-copy stride computation, and a copy that walks input
// and output in row-major order when neither side can be viewed with the other's shape.
#include "reshape.hpp"

#include "copy.hpp"
#include "index_iterator.hpp"
#include "hal/support/unaligned.hpp"

namespace rt {
namespace {

// Row-major strides for `shape` (any strides serve a tensor without elements).
void contiguous_strides(const Shape& shape, int64_t* strides) {
  int64_t stride = 1;
  for (unsigned d = shape.rank; d-- > 0;) {
    strides[d] = stride;
    stride *= shape.dims[d];
  }
}

// Element strides that show `in` with `shape` (same element count) without moving data; false
// when there are none. Input dimensions of size 1 are dropped; then input and output dimensions
// are matched in groups of equal size products, and each input group must be one contiguous run.
bool view_strides(const Tensor& in, const Shape& shape, int64_t* strides) {
  if (shape.num_elements() == 0) {
    contiguous_strides(shape, strides);
    return true;
  }
  int64_t old_dims[kMaxRank], old_strides[kMaxRank];
  unsigned old_rank = 0;
  for (unsigned d = 0; d < in.shape.rank; ++d) {
    if (in.shape.dims[d] == 1) continue;
    old_dims[old_rank] = in.shape.dims[d];
    old_strides[old_rank++] = in.strides[d];
  }
  unsigned old_begin = 0, new_begin = 0;
  while (new_begin < shape.rank && old_begin < old_rank) {
    unsigned old_end = old_begin + 1, new_end = new_begin + 1;
    int64_t old_size = old_dims[old_begin], new_size = shape.dims[new_begin];
    while (old_size != new_size) {
      if (new_size < old_size) new_size *= shape.dims[new_end++];
      else old_size *= old_dims[old_end++];
    }
    for (unsigned d = old_begin; d + 1 < old_end; ++d)
      if (old_strides[d] != old_dims[d + 1] * old_strides[d + 1]) return false;
    strides[new_end - 1] = old_strides[old_end - 1];
    for (unsigned d = new_end - 1; d > new_begin; --d) strides[d - 1] = strides[d] * shape.dims[d];
    old_begin = old_end;
    new_begin = new_end;
  }
  for (unsigned d = new_begin; d < shape.rank; ++d) strides[d] = 1;  // trailing size-1 dimensions
  return true;
}

Tensor with_shape(const Tensor& tensor, const Shape& shape, const int64_t* strides) {
  Tensor view = tensor;
  view.shape = shape;
  for (unsigned d = 0; d < shape.rank; ++d) view.strides[d] = strides[d];
  return view;
}

void move_element(const uint8_t* from, uint8_t* to, size_t size) {
  switch (size) {
    case 1: store_unaligned(to, load_unaligned<uint8_t>(from)); return;
    case 2: store_unaligned(to, load_unaligned<uint16_t>(from)); return;
    case 4: store_unaligned(to, load_unaligned<uint32_t>(from)); return;
    default: store_unaligned(to, load_unaligned<uint64_t>(from)); return;  // 8 bytes
  }
}

// Element k of `in` to element k of `out`, both in row-major order over their own shapes.
void copy_in_row_major_order(const Tensor& in, const Tensor& out) {
  IndexIterator<1> from(in.shape), to(out.shape);
  from.set_operand(0, in);
  to.set_operand(0, out);
  from.coalesce();
  to.coalesce();
  do {
    move_element(from.pointer(0), to.pointer(0), in.element_size());
  } while (from.next() && to.next());
}

}  // namespace

Result<Shape> reshape_shape(const Shape& in, Span<const int64_t> requested) {
  if (requested.size() > kMaxRank) return Shape::make(requested);  // the rank error
  int64_t dims[kMaxRank];
  int64_t product = 1;  // of the given sizes other than 0
  int unknown = -1;
  bool requested_zero = false;
  for (unsigned d = 0; d < requested.size(); ++d) {
    const int64_t size = requested[d];
    dims[d] = size;
    if (size == -1) {
      if (unknown != -1) return invalid_argument("Only one input size may be -1, not both {} and {}", unknown, d);
      unknown = static_cast<int>(d);
      dims[d] = 1;
    } else if (size < 0) {
      return invalid_argument("Size {} must be non-negative, not {}", d, size);
    } else if (size == 0) {
      requested_zero = true;
    } else {
      if (product > INT64_MAX / size) return invalid_argument("Shape {} has too many elements", requested);
      product *= size;
    }
  }
  if (unknown != -1) {
    // Like TF: when the request has a 0, the input's zero sizes are left out too, so that the other
    // sizes can still be inferred.
    int64_t input_elements = 1;
    bool input_zero_left_out = false;
    for (unsigned d = 0; d < in.rank; ++d) {
      if (in.dims[d] > 0 || !requested_zero) input_elements *= in.dims[d];
      else input_zero_left_out = true;
    }
    const int64_t missing = input_elements / product;
    if (!input_zero_left_out && missing * product != input_elements)
      return invalid_argument("Input to reshape is a tensor with {} values, but the requested shape requires a multiple of {}",
                              input_elements, product);
    dims[unknown] = missing;
  }
  Result<Shape> shape = Shape::make(Span<const int64_t>(dims, requested.size()));
  if (!shape) return shape;
  if (shape->num_elements() != in.num_elements())
    return invalid_argument("Input to reshape is a tensor with {} values, but the requested shape has {}", in.num_elements(),
                            shape->num_elements());
  return shape;
}

Result<Tensor> reshape_view(const Tensor& in, const Shape& shape) {
  if (shape.num_elements() != in.shape.num_elements())
    return invalid_argument("Input to reshape is a tensor with {} values, but the requested shape has {}",
                            in.shape.num_elements(), shape.num_elements());
  int64_t strides[kMaxRank];
  if (!view_strides(in, shape, strides))
    return invalid_argument("reshape: a tensor of shape {} with strides {} cannot be viewed as shape {} without a copy",
                            in.shape.sizes(), Span<const int64_t>(in.strides, in.shape.rank), shape.sizes());
  return with_shape(in, shape, strides);
}

Status reshape(const Tensor& in, const Tensor& out) {
  if (in.dtype != out.dtype)
    return invalid_argument("Reshape: input dtype {} differs from output dtype {}", dtype_name(in.dtype), dtype_name(out.dtype));
  if (in.shape.num_elements() != out.shape.num_elements())
    return invalid_argument("Input to reshape is a tensor with {} values, but the requested shape has {}",
                            in.shape.num_elements(), out.shape.num_elements());
  if (out.shape.num_elements() == 0) return Status::ok();
  int64_t strides[kMaxRank];
  if (view_strides(in, out.shape, strides)) copy_unchecked(with_shape(in, out.shape, strides), out);
  else if (view_strides(out, in.shape, strides)) copy_unchecked(in, with_shape(out, in.shape, strides));
  else copy_in_row_major_order(in, out);
  return Status::ok();
}

}  // namespace rt
