// The ops as functions that return their result: each allocates its output in the arena it is given
// (a replica's ReplicaContext::arena(), or rt::hbm() in the program) and returns it, the way a
// TF op returns a new tensor:
//   Tensor y = RT_TRY(rt::add(arena, x, 1.0f));          // broadcasting, a scalar of x's dtype
//   Tensor m = RT_TRY(rt::reduce_mean(arena, y));        // axis=None: every axis
//   Tensor p = RT_TRY(rt::softmax(arena, logits));
// Numerics, dtypes and errors are those of the write-into-output kernels they call (elementwise.hpp,
// unary.hpp, reduce_axes.hpp, softmax.hpp, cast.hpp), which stay for code that owns its buffers.
// Padded inputs (dynamic_shape.hpp): binary, unary, cast, softmax and log_softmax give their result
// the real sizes of their inputs (binary by the broadcast rule), reductions keep those of the kept
// axes; copy and transpose keep them too. reshape, concat and pad results have no padding (their
// real sizes are their sizes), so feed them unpadded tensors.
// Matrix products are rt::matmul(arena, a, b) in runtime/mxu/core_mxu.hpp (they need the core's MXU).
#pragma once
#include "runtime/ops/cast.hpp"
#include "runtime/ops/concat.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/ops/elementwise.hpp"
#include "runtime/ops/pad.hpp"
#include "runtime/ops/reduce_axes.hpp"
#include "runtime/ops/softmax.hpp"
#include "runtime/ops/unary.hpp"
#include "runtime/tensor/constant.hpp"

namespace rt {

Result<Tensor> binary(Arena& arena, BinaryOp op, const Tensor& a, const Tensor& b);
inline Result<Tensor> add(Arena& arena, const Tensor& a, const Tensor& b) { return binary(arena, BinaryOp::kAdd, a, b); }
inline Result<Tensor> sub(Arena& arena, const Tensor& a, const Tensor& b) { return binary(arena, BinaryOp::kSub, a, b); }
inline Result<Tensor> mul(Arena& arena, const Tensor& a, const Tensor& b) { return binary(arena, BinaryOp::kMul, a, b); }
inline Result<Tensor> div(Arena& arena, const Tensor& a, const Tensor& b) { return binary(arena, BinaryOp::kDiv, a, b); }
inline Result<Tensor> maximum(Arena& arena, const Tensor& a, const Tensor& b) { return binary(arena, BinaryOp::kMax, a, b); }
inline Result<Tensor> minimum(Arena& arena, const Tensor& a, const Tensor& b) { return binary(arena, BinaryOp::kMin, a, b); }

// The same with a plain number on the right, made a scalar of T's dtype (TF converts it to x's dtype;
// here T must be x's element type, or the op reports the dtype mismatch).
template <HasDType T>
Result<Tensor> binary(Arena& arena, BinaryOp op, const Tensor& a, T b) {
  const Tensor scalar_b = RT_TRY(scalar(arena, b, "a scalar operand"));
  return binary(arena, op, a, scalar_b);
}
template <HasDType T> Result<Tensor> add(Arena& arena, const Tensor& a, T b) { return binary(arena, BinaryOp::kAdd, a, b); }
template <HasDType T> Result<Tensor> sub(Arena& arena, const Tensor& a, T b) { return binary(arena, BinaryOp::kSub, a, b); }
template <HasDType T> Result<Tensor> mul(Arena& arena, const Tensor& a, T b) { return binary(arena, BinaryOp::kMul, a, b); }
template <HasDType T> Result<Tensor> div(Arena& arena, const Tensor& a, T b) { return binary(arena, BinaryOp::kDiv, a, b); }

Result<Tensor> unary(Arena& arena, UnaryOp op, const Tensor& x);
inline Result<Tensor> relu(Arena& arena, const Tensor& x) { return unary(arena, UnaryOp::kRelu, x); }
inline Result<Tensor> exp(Arena& arena, const Tensor& x) { return unary(arena, UnaryOp::kExp, x); }
inline Result<Tensor> log(Arena& arena, const Tensor& x) { return unary(arena, UnaryOp::kLog, x); }
inline Result<Tensor> tanh(Arena& arena, const Tensor& x) { return unary(arena, UnaryOp::kTanh, x); }
inline Result<Tensor> sigmoid(Arena& arena, const Tensor& x) { return unary(arena, UnaryOp::kSigmoid, x); }
inline Result<Tensor> square(Arena& arena, const Tensor& x) { return unary(arena, UnaryOp::kSquare, x); }

// Over `axes` (negative from the end), or over every axis when none are given (TF's axis=None).
Result<Tensor> reduce(Arena& arena, ReduceAxesOp op, const Tensor& x, Span<const int> axes, bool keepdims = false);
Result<Tensor> reduce(Arena& arena, ReduceAxesOp op, const Tensor& x);
inline Result<Tensor> reduce_sum(Arena& arena, const Tensor& x) { return reduce(arena, ReduceAxesOp::kSum, x); }
inline Result<Tensor> reduce_mean(Arena& arena, const Tensor& x) { return reduce(arena, ReduceAxesOp::kMean, x); }
inline Result<Tensor> reduce_max(Arena& arena, const Tensor& x) { return reduce(arena, ReduceAxesOp::kMax, x); }
inline Result<Tensor> reduce_sum(Arena& arena, const Tensor& x, std::initializer_list<int> axes, bool keepdims = false) {
  return reduce(arena, ReduceAxesOp::kSum, x, Span<const int>(axes.begin(), axes.size()), keepdims);
}
inline Result<Tensor> reduce_mean(Arena& arena, const Tensor& x, std::initializer_list<int> axes, bool keepdims = false) {
  return reduce(arena, ReduceAxesOp::kMean, x, Span<const int>(axes.begin(), axes.size()), keepdims);
}

Result<Tensor> softmax(Arena& arena, const Tensor& logits, int axis = -1);
Result<Tensor> log_softmax(Arena& arena, const Tensor& logits, int axis = -1);
Result<Tensor> cast(Arena& arena, const Tensor& x, DType dtype);

// A contiguous copy (of a strided view, e.g. a slice).
Result<Tensor> copy(Arena& arena, const Tensor& x);
// tf.transpose: the dimensions reordered (result dimension i is x's dimension permutation[i]), as a
// contiguous copy; no permutation reverses the dimensions (a matrix's transpose).
Result<Tensor> transpose(Arena& arena, const Tensor& x, Span<const unsigned> permutation);
Result<Tensor> transpose(Arena& arena, const Tensor& x);
// tf.reshape (one size may be -1), a contiguous copy.
Result<Tensor> reshape(Arena& arena, const Tensor& x, std::initializer_list<int64_t> dims);
// tf.concat along `axis`.
Result<Tensor> concat(Arena& arena, Span<const Tensor> inputs, int64_t axis);
// tf.pad with zeros (mode CONSTANT), one {before, after} per dimension.
Result<Tensor> pad(Arena& arena, const Tensor& x, Span<const Padding> paddings);

}  // namespace rt
