// Reductions over logical devices: a local reduce of each piece, then a grouped collective across the
// split reduced axes.
#include "runtime/tpu/spmd/spmd_reduce.hpp"

#include <string.h>

#include "runtime/ops/cast.hpp"
#include "runtime/ops/elementwise.hpp"
#include "runtime/tpu/spmd/sharding_algebra.hpp"

namespace rt::tpu::spmd {
namespace {

struct Axes {
  bool reduced[kMaxRank] = {};
};

// The reduced axes (already validated by reduced_shape).
Axes reduced_axes(unsigned rank, Span<const int> axes) {
  Axes result;
  for (int axis : axes) result.reduced[axis < 0 ? axis + static_cast<int>(rank) : axis] = true;
  return result;
}

Result<Tensor> allocate(DType dtype, const Shape& shape, StringView what) {
  return logical_devices().arena().allocate_tensor(dtype, shape, what);
}

Result<Tensor> local_reduce(ReduceAxesOp op, const Tensor& piece, Span<const int> axes, bool keepdims) {
  Result<Shape> shape = reduced_shape(piece.shape, axes, keepdims);
  if (!shape) return shape.status();
  Result<Tensor> out = allocate(piece.dtype, *shape, "an spmd reduction");
  if (!out) return out;
  RT_RETURN_IF_ERROR(reduce_axes(op, piece, axes, keepdims, *out));
  return out;
}

Result<Tensor> cast_to(const Tensor& x, DType dtype) {
  if (x.dtype == dtype) return x;
  Result<Tensor> out = allocate(dtype, x.shape, "an spmd reduction cast");
  if (!out) return out;
  RT_RETURN_IF_ERROR(cast(x, *out));
  return out;
}

bool is_16_bit_float(DType dtype) { return dtype == DType::kBF16 || dtype == DType::kF16; }

// A one-element tensor of `dtype` holding `count` (the mean's divisor).
Result<Tensor> count_scalar(DType dtype, int64_t count) {
  Result<Tensor> scalar = allocate(dtype, Shape{}, "a mean's element count");
  if (!scalar) return scalar;
  if (dtype == DType::kF32) *reinterpret_cast<float*>(scalar->data) = static_cast<float>(count);
  else if (dtype == DType::kF64) *reinterpret_cast<double*>(scalar->data) = static_cast<double>(count);
  else if (dtype == DType::kI32) *reinterpret_cast<int32_t*>(scalar->data) = static_cast<int32_t>(count);
  else *reinterpret_cast<uint32_t*>(scalar->data) = static_cast<uint32_t>(count);
  return scalar;
}

// The partial products of the group multiplied in group order: an all_gather, then a left fold.
Result<Tensor> all_multiply(const Tensor& partial, const GridGroups& groups) {
  Result<Tensor> gathered = logical_devices().all_gather(partial, groups.assignment());
  if (!gathered) return gathered;
  Result<Tensor> product = allocate(partial.dtype, partial.shape, "an spmd product");
  if (!product) return product;
  const size_t bytes = partial.num_elements() * partial.element_size();
  memcpy(product->data, gathered->data, bytes);
  for (unsigned member = 1; member < groups.group_size(); ++member) {
    const Tensor next = Tensor::contiguous(partial.dtype, partial.shape, gathered->data + member * bytes);
    RT_RETURN_IF_ERROR(rt::binary(BinaryOp::kMul, *product, next, *product));
  }
  return product;
}

// The mean's division of the combined sum by the number of real elements reduced (padding is not
// counted: dynamic_shape.hpp). An integer mean of no elements stays 0 (the sum's identity), as the
// unsplit op; a float one is 0 / 0, NaN.
Status divide_by_count(const Tensor& sum, const Shape& full, const Axes& reduced) {
  int64_t count = 1;
  for (unsigned d = 0; d < full.rank; ++d)
    if (reduced.reduced[d]) count *= full.real[d];
  if (count == 0 && (sum.dtype == DType::kI32 || sum.dtype == DType::kU32)) return Status::ok();
  Result<Tensor> divisor = count_scalar(sum.dtype, count);
  if (!divisor) return divisor.status();
  return rt::binary(BinaryOp::kDiv, sum, *divisor, sum);
}

ReduceOp collective_op(ReduceAxesOp op) {
  switch (op) {
    case ReduceAxesOp::kMax: return ReduceOp::kMax;
    case ReduceAxesOp::kMin: return ReduceOp::kMin;
    default: return ReduceOp::kSum;
  }
}

// Over split axes: the local partial (float32 for 16-bit sums), the grouped collective, the mean's
// division, and the cast back.
Result<Tensor> split_reduce(ReduceAxesOp op, const ShardedTensor& x, Span<const int> axes, bool keepdims,
                            const Axes& reduced) {
  const bool order_free = op == ReduceAxesOp::kMax || op == ReduceAxesOp::kMin;
  const DType work = !order_free && is_16_bit_float(x.dtype) ? DType::kF32 : x.dtype;
  Result<Tensor> piece = cast_to(x.local, work);
  if (!piece) return piece;
  const ReduceAxesOp local_op = op == ReduceAxesOp::kMean ? ReduceAxesOp::kSum : op;
  Result<Tensor> partial = local_reduce(local_op, *piece, axes, keepdims);
  if (!partial) return partial;
  const GridGroups groups(x.sharding, grid_mask_of(x.sharding, reduced.reduced));
  Result<Tensor> combined = op == ReduceAxesOp::kProd
                                ? all_multiply(*partial, groups)
                                : logical_devices().all_reduce(collective_op(op), *partial, groups.assignment());
  if (!combined) return combined;
  if (op == ReduceAxesOp::kMean) RT_RETURN_IF_ERROR(divide_by_count(*combined, x.shape, reduced));
  return cast_to(*combined, x.dtype);
}

}  // namespace

Result<ShardedTensor> reduce(ReduceAxesOp op, const ShardedTensor& x, Span<const int> axes, bool keepdims) {
  Result<Shape> full = reduced_shape(x.shape, axes, keepdims);
  if (!full) return full.status();
  const Axes reduced = reduced_axes(x.shape.rank, axes);
  const Sharding sharding = without_dims(x.sharding, reduced.reduced, keepdims);
  if (!x.has_local()) return make_sharded(x.dtype, *full, sharding, Tensor{});
  const bool split = grid_mask_of(x.sharding, reduced.reduced) != 0;
  Result<Tensor> out = split ? split_reduce(op, x, axes, keepdims, reduced) : local_reduce(op, x.local, axes, keepdims);
  if (!out) return out.status();
  return make_sharded(x.dtype, *full, sharding, *out);
}

}  // namespace rt::tpu::spmd
