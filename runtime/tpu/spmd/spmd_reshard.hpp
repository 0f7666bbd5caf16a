// Reshard to a block: how an SPMD op gets, on every logical device, the part of an operand it needs
// when the operand's sharding does not already give it (XLA's PartitionedHlo::Reshard): every device
// names, for every device, the block [begin, end) of the whole tensor that device needs (a pure
// function of the device id, so all devices take the same decision), and gets:
//   - its own piece, when for every device the piece its sharding gives is exactly its block;
//   - a slice of its piece, when the operand is replicated (no communication);
//   - otherwise a slice of the whole tensor, gathered first (gather_from_logical_devices: the
//     partitioner's fallback, all-gather then dynamic-slice).
// A block may reach past the tensor's end (a piece of an uneven split, logical_devices.hpp): the
// missing elements are zeros, and every block carries its real sizes.
// The result is a view (of the piece or of the gathered tensor in the caller's arena). Every logical
// core must call it (SPMD).
#pragma once
#include "hal/support/function_ref.hpp"
#include "spmd_tensor.hpp"

namespace rt::tpu::spmd {

struct Block {
  int64_t begin[kMaxRank] = {};
  int64_t end[kMaxRank] = {};
};

using BlockOf = FunctionRef<Block(unsigned logical_device)>;

Result<Tensor> block_of(const ShardedTensor& x, BlockOf block);

// The block a device's piece of `x` covers (the whole tensor unless tiled; an uneven piece's block
// reaches past the tensor's end).
Block piece_block(const ShardedTensor& x, unsigned logical_device);

// The block of `whole` (a tensor in the calling core's reach): a view when the block lies inside
// it, else a copy in the calling core's arena with zeros past whole's end (padded_piece.hpp). Its
// real sizes are the block's share of whole's (piece_real_size), so padding stays padding.
Result<Tensor> slice_block(const Tensor& whole, const Block& block);

}  // namespace rt::tpu::spmd
