// Tiled convolution: halo exchange between neighbouring logical devices, a VALID convolution of each
// device's window, and an all_reduce across a split channel dimension.
#include "runtime/tpu/spmd/spmd_conv2d.hpp"

#include <string.h>

#include "runtime/mxu/core_mxu.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/tpu/spmd/sharding_algebra.hpp"
#include "runtime/tpu/spmd/spmd_halo.hpp"
#include "runtime/tpu/spmd/spmd_reshard.hpp"

namespace rt::tpu::spmd {
namespace {

bool spatially_split(const Sharding& sharding) {
  return sharding.partitions_of(1) > 1 || sharding.partitions_of(2) > 1;
}

Status unsupported(const ShardedTensor& input, const ShardedTensor& filter) {
  return Status::error(StatusCode::kUnimplemented,
                       "conv2d over logical devices: an input {} with a filter {} is not supported (the input and the "
                       "filter may be tiled or replicated; assign_to_logical_device's tensors are not partitioned)",
                       sharding_text(input.sharding).view(), sharding_text(filter.sharding).view());
}

// The first dimension of `x` that splits unevenly, or -1.
int uneven_dimension(const ShardedTensor& x) {
  for (unsigned d = 0; d < x.shape.rank; ++d)
    if (x.shape.dims[d] % x.sharding.partitions_of(d) != 0) return static_cast<int>(d);
  return -1;
}

// Uneven shards (a padded dimension split unevenly, logical_devices.hpp) are not partitioned here:
// the runtime's conv2d does not read real sizes, and the halo plan needs equal tiles.
Status check_even(const char* what, const ShardedTensor& x) {
  const int d = uneven_dimension(x);
  if (d < 0) return Status::ok();
  const unsigned dim = static_cast<unsigned>(d);
  return Status::error(StatusCode::kUnimplemented,
                       "conv2d over logical devices: the {} of shape {} is {} with uneven shards (dimension {} of "
                       "size {} in {} pieces of {}); uneven shards are supported by the elementwise ops, reductions, "
                       "softmax and matmul, not by conv2d: split a dimension that divides evenly",
                       what, x.shape.sizes(), sharding_text(x.sharding).view(), dim, x.shape.dims[dim],
                       x.sharding.partitions_of(dim), shard_size(x.shape, x.sharding, dim));
}

// A filter tiled along its output channels only.
bool output_channel_split(const ShardedTensor& filter) {
  const Sharding& s = filter.sharding;
  return s.kind == ShardingKind::kTiled && s.partitions[0] == 1 && s.partitions[1] == 1 && s.partitions[2] == 1 &&
         s.partitions[3] > 1;
}

// The output's piece: the convolution of `tile` (the local piece, or a window of an extended tile).
Result<Tensor> convolve(const Tensor& tile, const Tensor& filter, const Conv2dOptions& options) {
  Result<Shape> shape = conv2d_output_shape(tile.shape, filter.shape, options);
  if (!shape) return shape.status();
  Arena& arena = logical_devices().arena();
  Result<Tensor> out =
      arena.allocate_tensor(filter.dtype == DType::kI8 ? DType::kI32 : DType::kF32, *shape, "an spmd conv2d result");
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::conv2d(core_mxu(), arena, tile, filter, options, *out));
  return out;
}

// The local piece with its halo: zeros, the piece in the interior, then each step's strip from the
// neighbour (a collective_permute over the logical devices: every device runs every step).
Result<Tensor> extended_tile(const HaloPlan& plan, const Tensor& piece) {
  LogicalDevices& devices = logical_devices();
  Result<Tensor> extended = devices.arena().allocate_tensor(piece.dtype, plan.extended, "a tile with its halo");
  if (!extended) return extended;
  memset(extended->data, 0, extended->num_elements() * extended->element_size());
  Result<Tensor> interior = halo_interior(plan, *extended);
  if (!interior) return interior;
  RT_RETURN_IF_ERROR(copy(piece, *interior));
  for (unsigned s = 0; s < plan.num_steps; ++s) {
    const HaloStep& step = plan.steps[s];
    Result<Tensor> outgoing = halo_send_strip(plan, step, *extended);
    Result<Tensor> incoming = halo_receive_strip(plan, step, *extended);
    if (!outgoing || !incoming) return !outgoing ? outgoing : incoming;
    ArenaScope scratch(devices.arena());
    Result<Tensor> received = devices.collective_permute(*outgoing, step.source_target_pairs());
    if (!received) return received;
    RT_RETURN_IF_ERROR(copy(*received, *incoming));
  }
  return extended;
}

Result<Tensor> halo_convolution(const ShardedTensor& input, const Tensor& filter, const Conv2dOptions& options) {
  Result<HaloPlan> plan =
      plan_conv_halo(input.shape, input.sharding, filter.shape.dims[0], filter.shape.dims[1], options);
  if (!plan) return plan.status();
  Result<Tensor> extended = extended_tile(*plan, input.local);
  if (!extended) return extended;
  Result<Tensor> window = halo_window(*plan, input.sharding, input.logical_device, *extended);
  if (!window) return window;
  Conv2dOptions valid;
  valid.strides[0] = options.strides[0], valid.strides[1] = options.strides[1];
  valid.dilations[0] = options.dilations[0], valid.dilations[1] = options.dilations[1];
  return convolve(*window, filter, valid);
}

// The filter's input channels matching each device's input channels (all of them unless split).
Result<Tensor> filter_for(const ShardedTensor& input, const ShardedTensor& filter) {
  return block_of(filter, [&](unsigned device) {
    Block block;
    const Block channels = piece_block(input, device);
    for (unsigned d = 0; d < 4; ++d) block.end[d] = filter.shape.dims[d];
    block.begin[2] = channels.begin[3];
    block.end[2] = channels.end[3];
    return block;
  });
}

// Sums the partial outputs of a split channel dimension across its devices.
Result<Tensor> sum_channel_partials(const ShardedTensor& input, const Tensor& partial) {
  const bool channels[4] = {false, false, false, true};
  const GridMask mask = grid_mask_of(input.sharding, channels);
  if (mask == 0) return partial;
  const GridGroups groups(input.sharding, mask);
  return logical_devices().all_reduce(ReduceOp::kSum, partial, groups.assignment());
}

Result<ShardedTensor> input_driven(const ShardedTensor& input, const ShardedTensor& filter,
                                   const Conv2dOptions& options, const Shape& full) {
  Result<Tensor> weights = filter_for(input, filter);
  if (!weights) return weights.status();
  const bool halo = input.sharding.kind == ShardingKind::kTiled && spatially_split(input.sharding);
  Result<Tensor> piece = halo ? halo_convolution(input, *weights, options) : convolve(input.local, *weights, options);
  if (!piece) return piece.status();
  Result<Tensor> summed = sum_channel_partials(input, *piece);
  if (!summed) return summed.status();
  if (input.sharding.kind != ShardingKind::kTiled) return make_sharded(summed->dtype, full, input.sharding, *summed);
  const int8_t grid_dim_of[4] = {input.sharding.grid_dim[0], input.sharding.grid_dim[1], input.sharding.grid_dim[2],
                                 Sharding::kNoGridDim};
  return make_sharded(summed->dtype, full, on_grid(input.sharding, 4, grid_dim_of), *summed);
}

Result<ShardedTensor> filter_driven(const ShardedTensor& input, const ShardedTensor& filter,
                                    const Conv2dOptions& options, const Shape& full) {
  Result<Tensor> piece = convolve(input.local, filter.local, options);
  if (!piece) return piece.status();
  const int8_t grid_dim_of[4] = {Sharding::kNoGridDim, Sharding::kNoGridDim, Sharding::kNoGridDim,
                                 filter.sharding.grid_dim[3]};
  return make_sharded(piece->dtype, full, on_grid(filter.sharding, 4, grid_dim_of), *piece);
}

}  // namespace

Result<ShardedTensor> conv2d(const ShardedTensor& input, const ShardedTensor& filter, const Conv2dOptions& options) {
  Result<Shape> full = conv2d_output_shape(input.shape, filter.shape, options);
  if (!full) return full.status();
  if (input.sharding.kind == ShardingKind::kMaximal || filter.sharding.kind == ShardingKind::kMaximal)
    return unsupported(input, filter);
  RT_RETURN_IF_ERROR(check_even("input", input));
  RT_RETURN_IF_ERROR(check_even("filter", filter));
  if (input.sharding.kind == ShardingKind::kReplicated && output_channel_split(filter))
    return filter_driven(input, filter, options, *full);
  return input_driven(input, filter, options, *full);
}

}  // namespace rt::tpu::spmd
