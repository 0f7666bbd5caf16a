// SPMD operations on ShardedTensors (spmd_tensor.hpp): every logical core of a replica calls them
// with its own values; each computes its piece, with a collective over the logical devices where
// the sharding needs one. Results are in the calling core's arena. Supported layouts (anything else
// is an UNIMPLEMENTED error naming both shardings):
//   unary(op, x)        any sharding; each holder applies op to its piece.
//   binary(op, a, b)    a and b sharded alike (same shape), or one tiled and the other replicated
//                       (it broadcasts into the tiled one's shape: its piece is sliced to match), or
//                       both replicated (NumPy broadcasting), or maximal with maximal on the same
//                       device / replicated. Piece-local, no communication.
// matmul is in spmd_matmul.hpp, reductions in spmd_reduce.hpp, softmax in spmd_softmax.hpp (all
// included here).
// Padded (dynamic) dimensions, uneven shards included (logical_devices.hpp): pieces carry their
// real sizes and the ops treat padding as the unsplit ops do (runtime/ops/dynamic_shape.hpp): the
// elementwise ops compute it and it stays inert (results take the real sizes of the broadcast rule,
// checked on the whole shapes first, so an "Incompatible shapes" error is every device's); a
// replicated operand's part for an uneven piece is zero-filled past its end.
// Numerics are the ops' own (runtime/ops): piece-local results equal the unsplit op's bit for bit.
#pragma once
#include "runtime/ops/elementwise.hpp"
#include "runtime/ops/unary.hpp"
#include "spmd_matmul.hpp"
#include "spmd_reduce.hpp"
#include "spmd_softmax.hpp"
#include "spmd_tensor.hpp"

namespace rt::tpu::spmd {

Result<ShardedTensor> unary(UnaryOp op, const ShardedTensor& x);
Result<ShardedTensor> binary(BinaryOp op, const ShardedTensor& a, const ShardedTensor& b);

}  // namespace rt::tpu::spmd
