// Reductions over logical devices: tf.reduce_sum / mean / max / min / prod (runtime/ops/reduce_axes.hpp)
// of a ShardedTensor, as XLA's SPMD partitioner partitions a reduce (HandleReduce):
//   - every holder reduces its piece over `axes`;
//   - when a reduced axis is split, the pieces' partial results are combined by an all_reduce over
//     the devices that differ only along the split reduced axes (sum: sum, mean: sum, then one
//     division by the whole element count; max / min: max / min; prod: an all_gather of the partial
//     products multiplied in ascending tile order, what an all-reduce with multiply computes);
//   - the result keeps the input's tiling of the kept axes over the input's device grid; the split
//     reduced axes' grid dimensions become replication (each tile held by every device of its group:
//     XLA's partially replicated sharding), and a result with no split axis left is replicated.
// keepdims keeps the reduced axes with size 1. Axis errors are TF's (reduced_shape). A tensor
// assigned to one logical device is reduced by that device alone.
// Padded axes (uneven shards included): each piece reduces only its real elements (a piece with none
// gives the identity: sum 0, prod 1, max -inf, min +inf) and mean divides by the whole tensor's
// number of real elements; kept axes keep their real sizes, as the unsplit op.
// Numerics: reducing only unsplit axes is piece-local: the same bits as the unsplit op. Over a split
// axis, max and min are the same bits too (NaN propagates; among equal values of opposite zero signs
// the sign may differ), while sum / mean / prod combine per-tile partial results in ascending tile
// order: ((s0 + s1) + s2) ... instead of one sequential chain, a reassociation that gives the same bits
// whenever every partial sum is exact (integers, and floats with few significant bits) and otherwise
// differs by at most about (n - 1) float32 roundings of the partial sums (n elements reduced).
// bfloat16 / float16 sums, means and products accumulate in float32 across the devices and round
// once at the end, as the unsplit op. int32 / uint32 sums wrap, as the unsplit op: the same bits.
// Every logical core must call it (SPMD).
#pragma once
#include "runtime/ops/reduce_axes.hpp"
#include "spmd_tensor.hpp"

namespace rt::tpu::spmd {

Result<ShardedTensor> reduce(ReduceAxesOp op, const ShardedTensor& x, Span<const int> axes, bool keepdims = false);

}  // namespace rt::tpu::spmd
