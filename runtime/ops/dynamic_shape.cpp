// The real-size rules the ops share (dynamic_shape.hpp): broadcasting real sizes and matmul's
// contraction over the real part of K.
#include "dynamic_shape.hpp"

namespace rt {
namespace {

// Operand `shape`'s real size in output dimension `d` of an output of rank `rank`, or -1 when the
// operand stretches there (a missing dimension or one of size 1).
int64_t aligned_real(const Shape& shape, unsigned rank, unsigned d) {
  if (d + shape.rank < rank) return -1;
  const unsigned own = d + shape.rank - rank;
  return shape.dims[own] == 1 ? -1 : shape.real[own];
}

// Whether operand `shape` is padded in output dimension `d` (as aligned_real).
bool aligned_padded(const Shape& shape, unsigned rank, unsigned d) {
  return d + shape.rank >= rank && is_padded(shape, d + shape.rank - rank);
}

// The real sizes of `shape`, for messages.
Span<const int64_t> real_sizes(const Shape& shape) { return Span<const int64_t>(shape.real, shape.rank); }

}  // namespace

bool has_padding(const Shape& shape) {
  for (unsigned d = 0; d < shape.rank; ++d)
    if (is_padded(shape, d)) return true;
  return false;
}

Status broadcast_real_sizes(const Shape& a, const Shape& b, Shape& out) {
  for (unsigned d = 0; d < out.rank; ++d) {
    const int64_t x = aligned_real(a, out.rank, d);
    const int64_t y = aligned_real(b, out.rank, d);
    if (x >= 0 && y >= 0 && x != y && aligned_padded(a, out.rank, d) && aligned_padded(b, out.rank, d))
      return invalid_argument("Incompatible shapes: {} vs. {} (real sizes of padded dimensions)", real_sizes(a),
                              real_sizes(b));
    // Where only one operand is padded, the other has the full size: the smaller is the padded one's.
    if (x < 0) out.real[d] = y < 0 ? out.dims[d] : y;
    else out.real[d] = y < 0 || x < y ? x : y;
  }
  return Status::ok();
}

MatmulOperands real_contraction(const Tensor& a, const Tensor& b) {
  if (a.shape.rank != 2 || b.shape.rank != 2 || a.shape.dims[1] != b.shape.dims[0]) return {a, b};
  if (!is_padded(a.shape, 1) && !is_padded(b.shape, 0)) return {a, b};
  const int64_t k = a.shape.real[1] < b.shape.real[0] ? a.shape.real[1] : b.shape.real[0];
  MatmulOperands operands{a, b};
  operands.a.shape.dims[1] = operands.a.shape.real[1] = k;
  operands.b.shape.dims[0] = operands.b.shape.real[0] = k;
  return operands;
}

void set_matmul_real_sizes(const Tensor& a, const Tensor& b, Shape& c) {
  if (a.shape.rank != 2 || b.shape.rank != 2 || c.rank != 2) return;
  c.real[0] = a.shape.real[0];
  c.real[1] = b.shape.real[1];
}

}  // namespace rt
