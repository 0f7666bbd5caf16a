// conv2d over logical devices: tf.nn.conv2d (NHWC input, HWIO filter) on an input tiled over the
// logical devices of a replica, each device computing its piece of the output on its core's MXU, as
// XLA's SPMD partitioner (convolution_handler.cc) partitions a convolution:
//   - input tiled [pn, ph, pw, pc] (or replicated), filter replicated or tiled along its input
//     channels like the input's channels (any other filter sharding is gathered first,
//     spmd_reshard.hpp, as the partitioner reshards an operand):
//       * a split height or width: each device gets the halo its output tile's window needs from
//         its neighbours (spmd_halo.hpp: collective_permutes over the logical devices, zeros at the
//         image border), for any padding (VALID, SAME, explicit), stride and dilation, and convolves
//         its window VALID; the output's height and width must split evenly over the tiles;
//       * a split channel dimension (the contracting one): each device convolves its channels with
//         the filter's matching input channels, and the partial outputs are summed by an all_reduce
//         over the devices that differ only in their channel tile (ascending tile order);
//     the output is tiled [pn, ph, pw, 1] over the input's device grid, each tile held by the pc
//     devices of its channel group;
//   - input replicated, filter tiled [1, 1, 1, po] (output channels): each device convolves the
//     whole input with its filters; the output is tiled [1, 1, 1, po];
//   - input and filter replicated: every device runs the whole convolution.
// A tensor assigned to one logical device (maximal) is an UNIMPLEMENTED error, and so is an input or
// filter with uneven shards (a padded dimension split unevenly, logical_devices.hpp): "conv2d over
// logical devices: the input of shape [1, 5, 4, 1] is tiled [1, 2, 1, 1] over 2 logical devices with
// uneven shards (dimension 1 of size 5 in 2 pieces of 3); ...".
// Numerics: without a channel split every output element's tap chain is computed whole on one core
// in the unsplit order (padding taps as zeros), so the pieces equal the unsplit convolution bit for
// bit. A channel split sums per-device partial chains: integer (int8) results are exact, float32
// ones are reassociated sums (equal to the unsplit ones when every partial sum is exact, e.g. small
// integers). Every logical core must call it (SPMD).
#pragma once
#include "runtime/ops/conv2d.hpp"
#include "spmd_tensor.hpp"

namespace rt::tpu::spmd {

Result<ShardedTensor> conv2d(const ShardedTensor& input, const ShardedTensor& filter, const Conv2dOptions& options);

}  // namespace rt::tpu::spmd
