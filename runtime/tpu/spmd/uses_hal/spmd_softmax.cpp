// softmax over logical devices: piece-local when the axis is whole, else max and sum all-reduced
// across the devices along the split axis.
#include "runtime/tpu/spmd/spmd_softmax.hpp"

#include "runtime/ops/dynamic_shape.hpp"
#include "runtime/ops/elementwise.hpp"
#include "runtime/ops/reduce_axes.hpp"
#include "runtime/ops/softmax.hpp"
#include "runtime/ops/unary.hpp"
#include "runtime/tpu/spmd/padded_piece.hpp"
#include "runtime/tpu/spmd/sharding_algebra.hpp"

namespace rt::tpu::spmd {
namespace {

enum class Kind : uint8_t { kSoftmax, kLogSoftmax };

Result<Tensor> allocate(DType dtype, const Shape& shape, StringView what) {
  return logical_devices().arena().allocate_tensor(dtype, shape, what);
}

Result<Tensor> local_softmax(Kind kind, const Tensor& piece, int axis) {
  Result<Tensor> out = allocate(piece.dtype, piece.shape, "an spmd softmax");
  if (!out) return out;
  RT_RETURN_IF_ERROR(kind == Kind::kSoftmax ? rt::softmax(piece, *out, axis) : rt::log_softmax(piece, *out, axis));
  return out;
}

// The axis in [0, rank), or the unsplit op's dtype or axis error (the op run on an empty tensor of
// the input's dtype and rank: it checks its arguments and touches no element).
Result<unsigned> resolve_axis(Kind kind, const ShardedTensor& logits, int axis) {
  const int rank = logits.shape.rank;
  Shape probe_shape = logits.shape;
  for (unsigned d = 0; d < probe_shape.rank; ++d) probe_shape.dims[d] = probe_shape.real[d] = 0;
  const Tensor probe = Tensor::contiguous(logits.dtype, probe_shape, nullptr);
  const Status status = kind == Kind::kSoftmax ? rt::softmax(probe, probe, axis) : rt::log_softmax(probe, probe, axis);
  if (!status.is_ok()) return status;
  return static_cast<unsigned>(axis < 0 ? axis + rank : axis);
}

// Reduces `x` over `axis` (keepdims) locally, then across `groups`.
Result<Tensor> row_reduce(ReduceAxesOp op, ReduceOp across, const Tensor& x, unsigned axis, const GridGroups& groups) {
  const int axes[] = {static_cast<int>(axis)};
  Result<Shape> shape = reduced_shape(x.shape, axes, true);
  if (!shape) return shape.status();
  Result<Tensor> local = allocate(x.dtype, *shape, "a softmax row reduction");
  if (!local) return local;
  RT_RETURN_IF_ERROR(reduce_axes(op, x, axes, true, *local));
  return logical_devices().all_reduce(across, *local, groups.assignment());
}

// Zeros at the padded positions of `axis` in `out` (a piece whose real size there is below its
// size), as the unsplit op writes them (dynamic_shape.hpp); `out` is returned.
Result<Tensor> zero_axis_padding(const Tensor& out, unsigned axis) {
  if (!is_padded(out.shape, axis)) return out;
  Result<Tensor> padding = out.slice(axis, out.shape.real[axis], out.shape.dims[axis]);
  if (!padding) return padding;
  RT_RETURN_IF_ERROR(zero_fill(*padding));
  return out;
}

// The row max and sum of exponentials over the real elements of each piece (reduce_axes skips
// padding; a piece with none gives the identities -inf and 0), all-reduced across the axis.
Result<Tensor> split_softmax(Kind kind, const ShardedTensor& logits, unsigned axis) {
  bool along[kMaxRank] = {};
  along[axis] = true;
  const GridGroups groups(logits.sharding, grid_mask_of(logits.sharding, along));
  const Tensor& x = logits.local;
  Result<Tensor> max = row_reduce(ReduceAxesOp::kMax, ReduceOp::kMax, x, axis, groups);
  if (!max) return max;
  Result<Tensor> shifted = allocate(x.dtype, x.shape, "softmax's x - max");
  Result<Tensor> exps = allocate(x.dtype, x.shape, "softmax's exponentials");
  if (!shifted || !exps) return !shifted ? shifted : exps;
  RT_RETURN_IF_ERROR(rt::binary(BinaryOp::kSub, x, *max, *shifted));
  RT_RETURN_IF_ERROR(rt::unary(UnaryOp::kExp, *shifted, *exps));
  Result<Tensor> sum = row_reduce(ReduceAxesOp::kSum, ReduceOp::kSum, *exps, axis, groups);
  if (!sum) return sum;
  if (kind == Kind::kSoftmax) {
    RT_RETURN_IF_ERROR(rt::binary(BinaryOp::kDiv, *exps, *sum, *exps));
    return zero_axis_padding(*exps, axis);
  }
  RT_RETURN_IF_ERROR(rt::unary(UnaryOp::kLog, *sum, *sum));
  RT_RETURN_IF_ERROR(rt::binary(BinaryOp::kSub, *shifted, *sum, *shifted));
  return zero_axis_padding(*shifted, axis);
}

Result<ShardedTensor> softmax_of_kind(Kind kind, const ShardedTensor& logits, int axis) {
  Result<unsigned> resolved = resolve_axis(kind, logits, axis);
  if (!resolved) return resolved.status();
  if (!logits.has_local()) return make_sharded(logits.dtype, logits.shape, logits.sharding, Tensor{});
  const bool split = logits.sharding.partitions_of(*resolved) > 1;
  if (split && logits.dtype != DType::kF32)
    return Status::error(StatusCode::kUnimplemented,
                         "{} over logical devices: a {} input split along the softmax axis ({} pieces) is not "
                         "supported; cast it to float32 first",
                         kind == Kind::kSoftmax ? "softmax" : "log_softmax", dtype_name(logits.dtype),
                         logits.sharding.partitions_of(*resolved));
  Result<Tensor> out = split ? split_softmax(kind, logits, *resolved) : local_softmax(kind, logits.local, axis);
  if (!out) return out.status();
  return make_sharded(logits.dtype, logits.shape, logits.sharding, *out);
}

}  // namespace

Result<ShardedTensor> softmax(const ShardedTensor& logits, int axis) {
  return softmax_of_kind(Kind::kSoftmax, logits, axis);
}

Result<ShardedTensor> log_softmax(const ShardedTensor& logits, int axis) {
  return softmax_of_kind(Kind::kLogSoftmax, logits, axis);
}

}  // namespace rt::tpu::spmd
