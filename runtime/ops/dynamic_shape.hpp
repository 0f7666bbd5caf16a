// Dynamic shapes through the ops (runtime/tpu/TF_BEHAVIOUR.md section 1): a tensor that replicate
// padded to its maximum_shapes carries each dimension's real size in Shape::real, and the ops treat
// it the way XLA's dynamic padder does:
// - elementwise ops (binary, unary, cast) compute every element, padding included (it is inert:
//   nothing reads it as data), and give their result the real sizes of their operands;
// - reductions visit only the real elements of the reduced axes (mean divides by their count);
// - softmax / log_softmax over a padded axis normalise over its real elements and write 0 in the
//   padding of that axis;
// - matmul contracts over the real part of K only (the padding contributes nothing, as XLA's zero
//   fill of a dynamic contraction dimension).
// These are the rules shared by those ops. A tensor whose real sizes equal its sizes (every tensor
// replicate did not pad) goes through each op exactly as before: the checks below are a few
// comparisons per op, never per element.
#pragma once
#include "runtime/tensor/tensor.hpp"

namespace rt {

// True when dimension `dim` holds padding (its real size is below its size).
inline bool is_padded(const Shape& shape, unsigned dim) { return shape.real[dim] != shape.dims[dim]; }
// True when some dimension holds padding.
bool has_padding(const Shape& shape);

// The broadcast rule on real sizes, for `out` holding the broadcast sizes of a and b (shapes align
// on the right): a dimension stretched from size 1 (or missing) takes the other operand's real
// size. Where both operands have the dimension and one is padded, the result has the padded one's
// real size (the other operand's elements past it meet padding, as in XLA, where a static operand
// takes the dynamic one's size); two padded operands must agree, else TF's "Incompatible shapes"
// error naming the real sizes.
Status broadcast_real_sizes(const Shape& a, const Shape& b, Shape& out);

// The operands of C = A x B with a padded contraction dimension K narrowed to the smaller of the
// two real sizes of K (views, no copy): the product then sums the real part of K only. Operands
// whose K needs no narrowing, or that are not matrices with matching K, come back unchanged (the
// matmul's own checks report a bad shape).
struct MatmulOperands {
  Tensor a;
  Tensor b;
};
MatmulOperands real_contraction(const Tensor& a, const Tensor& b);

// C's real sizes for C = A x B: A's real rows and B's real columns (the padded rows and columns
// of C are computed from padding and stay inert).
void set_matmul_real_sizes(const Tensor& a, const Tensor& b, Shape& c);

}  // namespace rt
