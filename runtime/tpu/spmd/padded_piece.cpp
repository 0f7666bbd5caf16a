// Zero fill and corner copies for padded pieces.
#include "padded_piece.hpp"

#include <string.h>

#include "runtime/ops/copy.hpp"

namespace rt::tpu {
namespace {

// One element of zero bits, read as any dtype through stride-0 (broadcast) views; never written.
alignas(8) uint8_t zero_element[8] = {};

bool fits_within(const Shape& part, const Shape& piece) {
  if (part.rank != piece.rank) return false;
  for (unsigned d = 0; d < part.rank; ++d)
    if (part.dims[d] > piece.dims[d]) return false;
  return true;
}

}  // namespace

Status zero_fill(const Tensor& view) {
  if (view.is_contiguous()) {
    memset(view.data, 0, view.num_elements() * view.element_size());
    return Status::ok();
  }
  Tensor zeros = view;
  zeros.data = zero_element;
  for (unsigned d = 0; d < zeros.shape.rank; ++d) zeros.strides[d] = 0;
  return copy(zeros, view);
}

Status copy_into_corner(const Tensor& part, const Tensor& piece) {
  if (part.dtype != piece.dtype || !fits_within(part.shape, piece.shape))
    return invalid_argument("a part {} of {} does not fit a padded piece {} of {}", part.shape.sizes(),
                            dtype_name(part.dtype), piece.shape.sizes(), dtype_name(piece.dtype));
  if (part.shape == piece.shape) return copy(part, piece);
  RT_RETURN_IF_ERROR(zero_fill(piece));
  Tensor corner = piece;
  for (unsigned d = 0; d < piece.shape.rank; ++d) {
    Result<Tensor> sliced = corner.slice(d, 0, part.shape.dims[d]);
    if (!sliced) return sliced.status();
    corner = *sliced;
  }
  return copy(part, corner);
}

}  // namespace rt::tpu
