// softmax and log_softmax over one axis (tf.nn.softmax / tf.nn.log_softmax, default axis -1), with
// one documented order of operations so results are the same bits on every board.
//
// For each row (all elements along `axis` with the other indices fixed), in float32 (bfloat16 and
// float16 inputs convert exactly; each result is rounded once to nearest even at the end):
//   m = max of the row, elements in ascending index order with the runtime's maximum (NaN propagates)
//   d_i = x_i - m                                  (float32 subtraction)
//   e_i = exp(d_i)                                 (float_math's exp_f32, correctly rounded in practice)
//   s = ((e_0 + e_1) + e_2) + ...                  (sequential float32 sum, ascending index)
//   softmax:     y_i = e_i / s
//   log_softmax: y_i = d_i - log(s)                (float_math's log_f32)
// Subtracting the max keeps every e_i <= 1, so large logits (1e4) do not overflow. A -inf entry
// gives softmax 0 (log_softmax -inf); a row of all -inf gives NaN (-inf - -inf), as TF; a +inf
// entry makes its row NaN. NaN results are the canonical quiet NaN.
// A padded axis (its real size below its size, runtime/ops/dynamic_shape.hpp): each row is the
// softmax of its real elements alone, exactly the value of the unpadded row, and its padded
// positions are 0 (log_softmax too). Rows at padded positions of other axes are computed from
// padding and are themselves padding. out's real sizes are the caller's (the returning ops give
// it the input's).
// Dtypes: float32, bfloat16, float16 (out has the input's dtype and shape; out may be the input).
#pragma once
#include "runtime/tensor/tensor.hpp"

namespace rt {

Status softmax(const Tensor& logits, const Tensor& out, int axis = -1);
Status log_softmax(const Tensor& logits, const Tensor& out, int axis = -1);

}  // namespace rt
