// Elementwise unary operations (relu, exp, log, tanh, gelu, sigmoid, sqrt, ...) on strided views,
// with TF/XLA semantics and the same bits on every board.
//
// Numerics:
// - float32: each op is the formula below evaluated in float32, one IEEE rounding per operation
//   (no contraction), using the runtime's own exp/log/tanh/erf/sigmoid (runtime/ops/float_math.hpp,
//   each correctly rounded in practice). bfloat16/float16 convert to float32 exactly, compute the
//   float32 result and round it once to nearest even.
// - relu(x) = max(x, +0) with the runtime's maximum (runtime/ops/elementwise.hpp): relu(NaN) = NaN,
//   relu(-0) = +0 (IEEE 754-2019 maximum orders -0 below +0), relu(-inf) = +0.
// - neg and abs only flip / clear the sign bit (also of NaNs and zeros), as IEEE 754 defines them.
// - square(x) = x * x; sqrt is IEEE (correctly rounded); rsqrt(x) = 1 / sqrt(x) computed in float64
//   and rounded once (float32, bfloat16, float16; for float64 it is 1.0 / sqrt(x), two roundings).
//   rsqrt(+0) = +inf, rsqrt(-0) = -inf, sqrt/rsqrt of x < 0 = NaN.
// - sigmoid(x) = 1 / (1 + exp(-x)) correctly rounded (float_math's sigmoid_f32).
// - gelu (tf.nn.gelu, approximate=False), in this order, each step rounded to float32:
//       t = x / 1.41421353816986083984375f          (sqrt(2) rounded to float32)
//       result = (0.5f * x) * (1.0f + erf(t))
//   gelu_tanh (tf.nn.gelu approximate=True):
//       cube = (x * x) * x
//       u = 0.79788458347320556640625f * (x + 0.0447149984538555145263671875f * cube)
//       result = (0.5f * x) * (1.0f + tanh(u))
//   These are TF's float32 formulas, so they share TF's behaviour: 1 + erf(t) cancels for x < -4
//   (the result has few correct bits, then -0), and gelu(-inf) = NaN (-inf * 0).
// - NaN results of float ops other than neg/abs are the canonical quiet NaN (positive, payload 0);
//   arithmetic NaN payloads differ between x86/Arm and RISC-V, so a fixed NaN keeps boards identical.
// - int32 (relu, neg, abs, square) wraps: neg(INT32_MIN) = abs(INT32_MIN) = INT32_MIN.
//
// Supported dtypes: float32, bfloat16 and float16 for every op; float64 for relu, neg, abs, square,
// sqrt and rsqrt; int32 for relu, neg, abs and square. Anything else is an error naming the op.
#pragma once
#include "runtime/tensor/tensor.hpp"

namespace rt {

enum class UnaryOp : uint8_t {
  kRelu,
  kNeg,
  kAbs,
  kSquare,
  kSqrt,
  kRsqrt,
  kExp,
  kLog,
  kTanh,
  kSigmoid,
  kGelu,      // exact, with erf
  kGeluTanh,  // tanh approximation
};
const char* unary_op_name(UnaryOp op);

// Whether `op` is implemented for `dtype`.
bool unary_supports(UnaryOp op, DType dtype);

// out = op(in) elementwise; in and out have the same dtype and shape, and may be strided views
// (out may be in itself). Padding (runtime/ops/dynamic_shape.hpp) is computed like any element and
// stays inert; the returning rt::unary gives its result the input's real sizes.
Status unary(UnaryOp op, const Tensor& in, const Tensor& out);

}  // namespace rt
