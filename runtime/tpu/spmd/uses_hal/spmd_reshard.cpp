// Getting the block of an operand a device needs: its piece, a slice of it, or a slice of the whole.
#include "runtime/tpu/spmd/spmd_reshard.hpp"

#include "runtime/tpu/spmd/padded_piece.hpp"

namespace rt::tpu::spmd {
namespace {

bool same_block(const Block& a, const Block& b, unsigned rank) {
  for (unsigned d = 0; d < rank; ++d)
    if (a.begin[d] != b.begin[d] || a.end[d] != b.end[d]) return false;
  return true;
}

bool pieces_are_blocks(const ShardedTensor& x, BlockOf block) {
  if (x.sharding.kind == ShardingKind::kMaximal) return false;
  for (unsigned device = 0; device < x.sharding.num_devices; ++device)
    if (!same_block(piece_block(x, device), block(device), x.shape.rank)) return false;
  return true;
}

// The block's sizes with their real sizes in `whole` (piece_real_size).
Shape block_shape(const Tensor& whole, const Block& block) {
  Shape shape = whole.shape;
  for (unsigned d = 0; d < shape.rank; ++d) {
    shape.dims[d] = block.end[d] - block.begin[d];
    shape.real[d] = piece_real_size(whole.shape, d, block.begin[d], shape.dims[d]);
  }
  return shape;
}

// The part of the block inside `whole` (a view), and whether that is all of it.
Result<Tensor> existing_part(const Tensor& whole, const Block& block, bool& whole_block) {
  Tensor view = whole;
  whole_block = true;
  for (unsigned d = 0; d < whole.shape.rank; ++d) {
    const int64_t size = whole.shape.dims[d];
    const int64_t begin = block.begin[d] < size ? block.begin[d] : size;
    const int64_t end = block.end[d] < size ? block.end[d] : size;
    whole_block = whole_block && end == block.end[d];
    Result<Tensor> sliced = view.slice(d, begin, end);
    if (!sliced) return sliced;
    view = *sliced;
  }
  return view;
}

}  // namespace

Result<Tensor> slice_block(const Tensor& whole, const Block& block) {
  const Shape shape = block_shape(whole, block);
  bool whole_block = true;
  Result<Tensor> part = existing_part(whole, block, whole_block);
  if (!part) return part;
  if (whole_block) {
    part->shape = shape;
    return part;
  }
  Result<Tensor> padded = logical_devices().arena().allocate_tensor(whole.dtype, shape, "a padded block");
  if (!padded) return padded;
  RT_RETURN_IF_ERROR(copy_into_corner(*part, *padded));
  return padded;
}

Block piece_block(const ShardedTensor& x, unsigned logical_device) {
  Block block;
  const Shape piece = shard_shape(x.shape, x.sharding);
  for (unsigned d = 0; d < x.shape.rank; ++d) {
    block.begin[d] = shard_offset(x.shape, x.sharding, logical_device, d);
    block.end[d] = block.begin[d] + piece.dims[d];
  }
  return block;
}

Result<Tensor> block_of(const ShardedTensor& x, BlockOf block) {
  if (pieces_are_blocks(x, block)) return x.local;
  const Block mine = block(x.logical_device);
  if (x.sharding.kind == ShardingKind::kReplicated) return slice_block(x.local, mine);
  Result<Tensor> whole = gather_from_logical_devices(x);
  if (!whole) return whole;
  return slice_block(*whole, mine);
}

}  // namespace rt::tpu::spmd
