// softmax and log_softmax over logical devices (tf.nn.softmax / log_softmax, runtime/ops/softmax.hpp)
// of a ShardedTensor, as XLA partitions the ops TF lowers them to (reduce max, subtract, exp,
// reduce sum, divide):
//   - `axis` not split: each holder runs the op on its piece: the same bits as the unsplit op, and
//     the result sharded as the input;
//   - `axis` split (float32): per row, each device takes the max of its part, an all_reduce(max) over
//     the devices along the split axis gives the row's max m (the unsplit op's, bit for bit), each
//     device forms d_i = x_i - m and e_i = exp(d_i) (the unsplit op's bits), sums its e_i, and an
//     all_reduce(sum) over the same devices gives s; then y_i = e_i / s (log_softmax: d_i - log(s)).
//     The result is sharded as the input.
// Numerics over a split axis: s sums the per-device partial sums in ascending tile order instead of
// one sequential chain. All e_i are positive, so each order's relative error is below (L - 1) u
// (L the axis length, u = 2^-24), the two sums differ by less than 2 (L - 1) u relatively, and each
// y_i differs from the unsplit result by at most about 2 L units in the last place (log_softmax: by
// at most 2 L u absolutely, through log(s)). bfloat16 / float16 inputs split along the axis are an
// UNIMPLEMENTED error (the unsplit op rounds once from float32; cast to float32 first). Axis and
// dtype errors are the unsplit op's. A padded axis (uneven shards included): the max and the sum take
// each piece's real elements only, and the padded positions along the axis are written 0, as the
// unsplit op. Every logical core must call it (SPMD).
#pragma once
#include "spmd_tensor.hpp"

namespace rt::tpu::spmd {

Result<ShardedTensor> softmax(const ShardedTensor& logits, int axis = -1);
Result<ShardedTensor> log_softmax(const ShardedTensor& logits, int axis = -1);

}  // namespace rt::tpu::spmd
