// The runtime's own float32 elementary functions (exp, log, tanh, erf, sigmoid, sqrt): the same
// bits on every board, because libm differs between boards and is never called.
//
// Method: each function works in float64 (hardware IEEE double on every board: x86-64 SSE2, the
// Cortex-A53, RV64 "D") with only + - * /, fma and bit manipulation - range reduction, then a
// Taylor / series polynomial - and rounds to float32 once at the end. The float64 value is within a
// few 2^-50 (relative) of the exact result, so the float32 result is the correctly rounded one
// except when the exact value lies within about 2^-26 ulp of a rounding midpoint.
// Measured against the host's float64 libm over all 2^32 inputs (once, at development time): max
// error 0.5000000002 ulp. exp, log, tanh and sigmoid equal the float64 reference rounded to float32
// for every input; erf for every input but +-0x1.81d5acp-13, whose exact value lies 1.6e-10 ulp
// above a midpoint (we round down). tests/unit/test_float_math.cpp repeats the sweep over every
// 97th bit pattern.
//
// Special values (as C and IEEE 754 define them):
//   exp:  exp(+-0) = 1, exp(+inf) = +inf, exp(-inf) = +0, overflow -> +inf, underflow -> +0, results
//         in the subnormal range are rounded correctly.
//   log:  log(+-0) = -inf, log(x < 0) = NaN, log(+inf) = +inf, log(1) = +0; subnormal inputs exact.
//   tanh: tanh(+-0) = +-0, tanh(+-inf) = +-1, saturates to +-1 for |x| >= 10.
//   erf:  erf(+-0) = +-0, erf(+-inf) = +-1, saturates to +-1 for |x| >= 4.
//   sigmoid (1 / (1 + exp(-x))): sigmoid(-0) = 0.5, sigmoid(+inf) = 1, sigmoid(-inf) = +0.
//   sqrt: IEEE square root (correctly rounded), sqrt(-0) = -0, sqrt(x < 0) = NaN.
//   A NaN input, or an invalid operation, gives the canonical quiet NaN (kCanonicalNan bits): x86
//   and Arm propagate NaN payloads while RISC-V canonicalises them, so only one fixed NaN is the
//   same on every board.
#pragma once
#include "runtime/dtype/dtype.hpp"  // kCanonicalNanF32 / kCanonicalNanF64

namespace rt {

float exp_f32(float x);
// out[i] = exp_f32(in[i]) for i < count, the same bits, several lanes at a time where the target has
// vectors (one loop of the same float64 operations); in and out may be the same array.
void exp_f32_many(const float* in, float* out, size_t count);
float log_f32(float x);
float tanh_f32(float x);
float erf_f32(float x);
float sigmoid_f32(float x);

// IEEE square roots through the hardware instruction (never the libm call GCC emits for errno).
float sqrt_f32(float x);
double sqrt_f64(double x);

// The canonical quiet NaN when `x` is any NaN, else `x` unchanged. Inline, so loops over tensors
// that call it still vectorize.
inline float canonical_nan_if_nan(float x) { return x != x ? __builtin_bit_cast(float, kCanonicalNanF32) : x; }
inline double canonical_nan_if_nan(double x) { return x != x ? __builtin_bit_cast(double, kCanonicalNanF64) : x; }

}  // namespace rt
