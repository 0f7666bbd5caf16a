// cast: converts every element of a tensor to another dtype (tf.cast on XLA: the same bits on every
// board). Supported: float32, float64, bfloat16, float16, int8, int32, uint32, int64 and bool to
// one another; any of them to complex64 (real part converted as to float32, imaginary part +0);
// complex64 only to complex64.
//
// Rules (XLA's ConvertElementType on CPU/TPU):
// - float -> float: one rounding to nearest, ties to even, from the exact source value (float64 ->
//   bfloat16 rounds once, never through float32); overflow gives infinity, signed zeros keep their
//   sign, subnormals are exact. NaN stays NaN with its sign: widening keeps the payload bit for
//   bit, narrowing keeps the leading payload bits and sets the quiet bit; float16 results are the
//   canonical quiet NaN (half.hpp).
// - float -> integer: truncates toward zero and saturates to the integer's range (XLA's
//   fptosi.sat semantics; C++ leaves out-of-range conversions undefined); NaN -> 0.
// - integer -> float: rounds to nearest even once (int64 -> bfloat16 too); bool -> 0 or 1.
// - integer -> integer: wraps modulo 2^bits (two's complement), as TF and XLA do.
// - anything -> bool: nonzero -> true (NaN and -0.0: NaN is true, -0.0 false); true -> 1.
// All arithmetic is integer bit manipulation, so no FPU mode (flush-to-zero, NaN canonicalisation
// on RISC-V) changes a result.
#pragma once
#include "runtime/tensor/tensor.hpp"

namespace rt {

// out = cast of in to out.dtype; shapes must be equal, views may have any strides, in and out must
// not overlap. Same-dtype casts are copies. Padding (runtime/ops/dynamic_shape.hpp) is converted
// like any element and stays inert; the returning rt::cast gives its result the input's real sizes.
Status cast(const Tensor& in, const Tensor& out);

// True when cast() converts `from` to `to`.
bool cast_supported(DType from, DType to);

}  // namespace rt
