// Reductions of a tensor over some of its axes (tf.reduce_sum / mean / max / min / prod) with TF's
// axis conventions and one documented accumulation order, so results are the same bits on every
// board and for every layout of the input view.
//
// Axes: negative axes count from the end; an axis outside [-rank, rank) or given twice is TF's
// error ("Invalid reduction dimension (5 for input with 2 dimension(s)", "Invalid reduction
// arguments: Axes contains duplicate dimension: 1"). An empty axis list reduces nothing: every
// output element is its one input element (a copy, apart from NaN canonicalisation below).
// keepdims keeps reduced axes as size 1; otherwise they are removed.
//
// Accumulation order: for each output element, the reduced input elements are visited in ascending
// row-major order of their indices over the reduced axes (the last reduced axis fastest), whatever
// order the axes were listed in and whatever the input's strides. The accumulator starts at the
// first visited element and combines each next one as acc = acc op x, one rounding per step:
//   float32: float32 accumulator; float64: float64; bfloat16/float16: float32 accumulator, rounded
//   once to nearest even at the end; int32/uint32: wrapping arithmetic.
//   sum: acc + x; prod: acc * x; max/min: the runtime's maximum/minimum (elementwise.hpp): NaN
//   propagates, and between equal values the later one wins (so max(-0, +0) depends on order, as
//   written: acc > x ? acc : x).
//   mean: the sum divided once by the element count converted to the accumulator type (float32
//   for float32/bfloat16/float16: exact up to 2^24 elements); int32/uint32: truncating integer
//   division of the wrapped sum, as TF.
// Reducing over zero elements gives the identity: sum 0, prod 1, max -inf (INT32_MIN / 0 for
// int32 / uint32), min +inf (INT32_MAX / UINT32_MAX), mean NaN for floats (0 / 0) and 0 for
// integers (TF's value).
// Padded inputs (runtime/ops/dynamic_shape.hpp): only the real elements of each reduced axis (a
// prefix of it) are visited, and mean divides by their count, so padding never reaches a result; a
// padded axis whose real size is 0 reduces zero elements. Kept axes keep their real sizes in the
// result's shape (reduced_shape); the output elements at their padded positions reduce padding
// and are themselves padding. Inputs without padding visit exactly the elements they always did.
// Float NaN results are the canonical quiet NaN (positive, zero payload) on every board.
// Dtypes: float32, float64, bfloat16, float16, int32, uint32; out has the input's dtype.
#pragma once
#include "runtime/tensor/tensor.hpp"

namespace rt {

enum class ReduceAxesOp : uint8_t { kSum, kMean, kMax, kMin, kProd };
// TF's op names: "reduce_sum", "reduce_mean", ...
const char* reduce_axes_op_name(ReduceAxesOp op);

// The shape of reducing `input` over `axes`, or TF's error for a bad axis; kept axes keep their
// real sizes (keepdims' axes of size 1 have real size 1).
Result<Shape> reduced_shape(const Shape& input, Span<const int> axes, bool keepdims);

// out = op over `axes` of `in`; out must have reduced_shape(in.shape, axes, keepdims) and in's
// dtype. Both may be strided views (out must not overlap in).
Status reduce_axes(ReduceAxesOp op, const Tensor& in, Span<const int> axes, bool keepdims, const Tensor& out);

}  // namespace rt
