// HaloPlan: how a logical device gets the neighbouring rows and columns ("halo") its piece of an
// NHWC image needs for a convolution (any padding, stride and dilation) when the image is tiled over
// the height and width (spmd_conv2d.hpp), as XLA's ReshardAsWindowedInput does. Each device builds an
// extended tile
//     [n, before_h + h + after_h, before_w + w + after_w, C]    (h, w: its shard's height and width)
// zero-filled, with its shard in the interior, then runs the steps in order. A step moves a strip
// of `width` rows (dim 1) or columns (dim 2) from every device to its neighbour along that dimension:
// the strip at send_begin in the sender's extended tile lands at receive_begin in the receiver's.
// Height steps move the interior columns only; width steps then move whole extended columns, so
// the corners (the diagonal neighbours' pixels) arrive in two hops. A device with no neighbour on a
// side keeps zeros there: the image border's SAME padding. The moves are collective_permutes over
// the logical devices with the step's source-target pairs (devices without a source receive zeros).
// Output tile t (out_tile rows or columns of the whole output) reads the input rows
// [t * out_tile * stride - pad_before, + window) of the whole image: in tile t's extended tile the
// window starts at window_begin(t) = first_begin + t * tile_step, the same for every device of that
// tile. `before` and `after` are the largest reach of any tile's window past its shard (at least
// the image border's padding), so the window always lies inside the extended tile; rows of the
// extended tile outside the image stay zero (the padding). A VALID convolution (same strides and
// dilations) of each device's window is its piece of the whole convolution, with every output's tap
// chain exactly as the unsplit convolution computes it (padding taps as zeros). Channels may be split
// too: the strips carry the device's channels. HAL-free.
#pragma once
#include "logical_devices.hpp"
#include "runtime/ops/conv2d.hpp"

namespace rt::tpu {

struct HaloStep {
  unsigned dim = 1;  // 1 height, 2 width
  int64_t width = 0;
  int64_t send_begin = 0;
  int64_t receive_begin = 0;
  int64_t pairs[2 * kMaxLogicalDevices] = {};  // [source, target] logical device ids, flattened
  unsigned num_pairs = 0;

  Span<const int64_t> source_target_pairs() const { return Span<const int64_t>(pairs, 2 * num_pairs); }
};

struct HaloPlan {
  int64_t before[2] = {};  // halo rows above and columns left of the shard (SAME's pad_before)
  int64_t after[2] = {};   // below and right
  Shape shard;             // the device's input piece [n, h, w, C]
  Shape extended;          // [n, before_h + h + after_h, before_w + w + after_w, C]
  HaloStep steps[4];
  unsigned num_steps = 0;
  // Per spatial dimension (0 height, 1 width): the output rows / columns of each tile, the window of
  // the extended tile that makes them, where tile 0's window starts and how far each next tile's moves.
  int64_t out_tile[2] = {};
  int64_t window[2] = {};
  int64_t first_begin[2] = {};
  int64_t tile_step[2] = {};

  int64_t window_begin(unsigned s, int64_t tile) const { return first_begin[s] + tile * tile_step[s]; }
};

// The plan for an input shaped `full_input` [N, H, W, C] tiled by `sharding`, a kernel of
// kernel_h x kernel_w taps and `options` (conv2d.hpp). Errors (UNIMPLEMENTED unless noted): a
// sharding that is not tiled on a rank-4 tensor (INVALID_ARGUMENT), an output height or width that
// does not split evenly over the tiles, or a halo wider than a shard (it would need pixels from
// beyond the neighbour).
Result<HaloPlan> plan_conv_halo(const Shape& full_input, const Sharding& sharding, int64_t kernel_h, int64_t kernel_w,
                                const Conv2dOptions& options);
// The SAME, stride-1 plan (the seed example's convolutions).
Result<HaloPlan> plan_halo(const Shape& full_input, const Sharding& sharding, int64_t kernel_h, int64_t kernel_w);
// The window of `extended` (a device's extended tile) that the device convolves VALID.
Result<Tensor> halo_window(const HaloPlan& plan, const Sharding& sharding, unsigned logical_device,
                           const Tensor& extended);

// Views into an extended tile: the interior (where the shard goes), and a step's strips.
Result<Tensor> halo_interior(const HaloPlan& plan, const Tensor& extended);
Result<Tensor> halo_send_strip(const HaloPlan& plan, const HaloStep& step, const Tensor& extended);
Result<Tensor> halo_receive_strip(const HaloPlan& plan, const HaloStep& step, const Tensor& extended);

}  // namespace rt::tpu
