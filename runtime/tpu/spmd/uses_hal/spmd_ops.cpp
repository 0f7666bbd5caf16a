// Piece-local elementwise ops.
#include "runtime/tpu/spmd/spmd_ops.hpp"

#include "runtime/tpu/spmd/spmd_reshard.hpp"

namespace rt::tpu::spmd {
namespace {

Status unsupported(const char* op, const ShardedTensor& a, const ShardedTensor& b) {
  return Status::error(StatusCode::kUnimplemented,
                       "spmd {}: operands of shapes {} and {} sharded {} and {} are not supported; reshard one "
                       "(gather_from_logical_devices, then split) first",
                       op, a.shape.sizes(), b.shape.sizes(), sharding_text(a.sharding).view(),
                       sharding_text(b.sharding).view());
}

Result<Tensor> allocate(DType dtype, const Shape& shape, StringView what) {
  return logical_devices().arena().allocate_tensor(dtype, shape, what);
}

// A holder-less result for devices a maximal sharding leaves out.
ShardedTensor without_local(DType dtype, const Shape& shape, const Sharding& sharding) {
  return make_sharded(dtype, shape, sharding, Tensor{});
}

// The part of replicated `r` that lines up with tiled `t`'s piece: r broadcasts into t's shape
// (aligned on the right); a dimension of r as large as t's split one is cut like t's (zeros past
// r's end where t's piece is uneven).
Result<Tensor> matching_piece(const ShardedTensor& r, const ShardedTensor& t) {
  Block block;
  const unsigned offset = t.shape.rank - r.shape.rank;
  for (unsigned d = 0; d < r.shape.rank; ++d) {
    const unsigned td = d + offset;
    block.end[d] = r.shape.dims[d];
    if (t.sharding.partitions_of(td) == 1 || r.shape.dims[d] == 1) continue;
    block.begin[d] = shard_offset(t.shape, t.sharding, t.logical_device, td);
    block.end[d] = block.begin[d] + shard_size(t.shape, t.sharding, td);
  }
  return slice_block(r.local, block);
}

Result<ShardedTensor> local_binary(BinaryOp op, const Tensor& a, const Tensor& b, const ShardedTensor& like,
                                   const Shape& full) {
  Result<Shape> shape = broadcast_shape(a.shape, b.shape);
  if (!shape) return shape.status();
  Result<Tensor> out = allocate(a.dtype, *shape, "an spmd binary result");
  if (!out) return out.status();
  RT_RETURN_IF_ERROR(rt::binary(op, a, b, *out));
  return make_sharded(a.dtype, full, like.sharding, *out);
}

// One tiled operand, one replicated one broadcasting into it.
Result<ShardedTensor> tiled_with_replicated(BinaryOp op, const ShardedTensor& a, const ShardedTensor& b) {
  const bool a_tiled = a.sharding.kind == ShardingKind::kTiled;
  const ShardedTensor& tiled = a_tiled ? a : b;
  const ShardedTensor& replicated = a_tiled ? b : a;
  Result<Shape> full = broadcast_shape(a.shape, b.shape);
  if (!full) return full.status();
  if (!(*full == tiled.shape)) return unsupported(binary_op_name(op), a, b);
  Result<Tensor> piece = matching_piece(replicated, tiled);
  if (!piece) return piece.status();
  return a_tiled ? local_binary(op, a.local, *piece, tiled, *full) : local_binary(op, *piece, b.local, tiled, *full);
}

Result<ShardedTensor> maximal_binary(BinaryOp op, const ShardedTensor& a, const ShardedTensor& b) {
  const ShardedTensor& holder = a.sharding.kind == ShardingKind::kMaximal ? a : b;
  const ShardedTensor& other = a.sharding.kind == ShardingKind::kMaximal ? b : a;
  if (other.sharding.kind == ShardingKind::kTiled ||
      (other.sharding.kind == ShardingKind::kMaximal && other.sharding.device != holder.sharding.device))
    return unsupported(binary_op_name(op), a, b);
  Result<Shape> full = broadcast_shape(a.shape, b.shape);
  if (!full) return full.status();
  if (!holder.has_local()) return without_local(a.dtype, *full, holder.sharding);
  return local_binary(op, a.local, b.local, holder, *full);
}

}  // namespace

Result<ShardedTensor> unary(UnaryOp op, const ShardedTensor& x) {
  if (!x.has_local()) return without_local(x.dtype, x.shape, x.sharding);
  Result<Tensor> out = allocate(x.dtype, x.local.shape, "an spmd unary result");
  if (!out) return out.status();
  RT_RETURN_IF_ERROR(rt::unary(op, x.local, *out));
  return make_sharded(x.dtype, x.shape, x.sharding, *out);
}

Result<ShardedTensor> binary(BinaryOp op, const ShardedTensor& a, const ShardedTensor& b) {
  const ShardingKind ka = a.sharding.kind, kb = b.sharding.kind;
  if (ka == ShardingKind::kMaximal || kb == ShardingKind::kMaximal) return maximal_binary(op, a, b);
  if (ka == ShardingKind::kReplicated && kb == ShardingKind::kReplicated) {
    Result<Shape> full = broadcast_shape(a.shape, b.shape);
    if (!full) return full.status();
    return local_binary(op, a.local, b.local, a, *full);
  }
  if (ka == ShardingKind::kTiled && kb == ShardingKind::kTiled) {
    if (!(a.sharding == b.sharding) || !(a.shape == b.shape)) return unsupported(binary_op_name(op), a, b);
    Result<Shape> full = broadcast_shape(a.shape, b.shape);  // the real sizes, or TF's error on every device
    if (!full) return full.status();
    return local_binary(op, a.local, b.local, a, *full);
  }
  return tiled_with_replicated(op, a, b);
}

}  // namespace rt::tpu::spmd
