// Elementwise operations on tensors with NumPy/XLA broadcasting: shapes align on the right and a
// dimension of size 1 (or a missing one) stretches. Operands may be strided views.
//
// Numerics (XLA's, the same bits on every board): float32/float64 ops are IEEE, correctly rounded;
// bfloat16/float16 compute in float32 and round once to nearest even; max/min propagate NaN; every
// NaN result is the canonical quiet NaN (float_math.hpp), whatever the hardware's NaN rules;
// int32/uint32 add/sub/mul wrap, and integer division truncates toward zero with x / 0 = -1
// (uint32: all ones) and INT32_MIN / -1 = INT32_MIN, as XLA defines them.
#pragma once
#include "runtime/tensor/tensor.hpp"

namespace rt {

enum class BinaryOp : uint8_t { kAdd, kSub, kMul, kDiv, kMax, kMin };
const char* binary_op_name(BinaryOp op);

// out = a op b; a, b and out share a dtype (float32, float64, bfloat16, float16, int32, uint32) and
// out has the broadcast shape of a and b. Padding (dimensions whose real size is below their size,
// dynamic_shape.hpp) is computed like any element and stays inert; out's real sizes are the
// caller's (broadcast_shape gives them).
Status binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out);

// The broadcast shape of a and b, or TF's error for incompatible shapes. Its real sizes follow the
// broadcast rule (dynamic_shape.hpp: padded operands give their real sizes to the result).
Result<Shape> broadcast_shape(const Shape& a, const Shape& b);

}  // namespace rt
