// Getting the block of an operand a device needs: its piece, a slice of it, or a slice of the whole.
#include "runtime/tpu/spmd/spmd_reshard.hpp"

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

Result<Tensor> slice_block(const Tensor& whole, const Block& block) {
  Tensor view = whole;
  for (unsigned d = 0; d < whole.shape.rank; ++d) {
    Result<Tensor> sliced = view.slice(d, block.begin[d], block.end[d]);
    if (!sliced) return sliced;
    view = *sliced;
  }
  return view;
}

}  // namespace

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
