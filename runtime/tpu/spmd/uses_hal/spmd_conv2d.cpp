// Tiled SAME convolution: halo exchange between neighbouring logical devices, then VALID per tile.
#include "runtime/tpu/spmd/spmd_conv2d.hpp"

#include <string.h>

#include "runtime/mxu/core_mxu.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/tpu/spmd/spmd_halo.hpp"

namespace rt::tpu::spmd {
namespace {

bool spatially_split(const Sharding& sharding) {
  return sharding.partitions_of(1) > 1 || sharding.partitions_of(2) > 1;
}

Status check_halo_options(const Conv2dOptions& options) {
  if (options.padding == ConvPadding::kSame && options.strides[0] == 1 && options.strides[1] == 1 &&
      options.dilations[0] == 1 && options.dilations[1] == 1)
    return Status::ok();
  return Status::error(StatusCode::kUnimplemented,
                       "conv2d over logical devices: an input split along its height or width needs SAME padding, "
                       "strides 1 and dilations 1 (got {} padding, strides [{}, {}], dilations [{}, {}])",
                       options.padding == ConvPadding::kSame    ? "SAME"
                       : options.padding == ConvPadding::kValid ? "VALID"
                                                            : "explicit",
                       options.strides[0], options.strides[1], options.dilations[0], options.dilations[1]);
}

Status check_layouts(const ShardedTensor& input, const ShardedTensor& filter) {
  if (filter.sharding.kind != ShardingKind::kReplicated ||
      (input.sharding.kind != ShardingKind::kTiled && input.sharding.kind != ShardingKind::kReplicated))
    return Status::error(StatusCode::kUnimplemented,
                         "conv2d over logical devices: the input must be tiled or replicated and the filter replicated; "
                         "got an input {} and a filter {}",
                         sharding_text(input.sharding).view(), sharding_text(filter.sharding).view());
  if (input.sharding.partitions_of(3) > 1)
    return Status::error(StatusCode::kUnimplemented,
                         "conv2d over logical devices: the input's channel dimension is split {} ways; only the batch, "
                         "height and width may be split",
                         input.sharding.partitions_of(3));
  return Status::ok();
}

// The output's piece: the convolution of `tile` (the local piece, or an extended tile) with `options`.
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

Result<Tensor> halo_convolution(const ShardedTensor& input, const Tensor& filter) {
  Result<HaloPlan> plan = plan_halo(input.shape, input.sharding, filter.shape.dims[0], filter.shape.dims[1]);
  if (!plan) return plan.status();
  Result<Tensor> extended = extended_tile(*plan, input.local);
  if (!extended) return extended;
  Conv2dOptions valid;
  return convolve(*extended, filter, valid);
}

Result<Shape> whole_output_shape(const ShardedTensor& input, const ShardedTensor& filter, const Conv2dOptions& options) {
  return conv2d_output_shape(input.shape, filter.shape, options);
}

}  // namespace

Result<ShardedTensor> conv2d(const ShardedTensor& input, const ShardedTensor& filter, const Conv2dOptions& options) {
  RT_RETURN_IF_ERROR(check_layouts(input, filter));
  Result<Shape> full = whole_output_shape(input, filter, options);
  if (!full) return full.status();
  const bool halo = spatially_split(input.sharding);
  if (halo) RT_RETURN_IF_ERROR(check_halo_options(options));
  Result<Tensor> piece = halo ? halo_convolution(input, filter.local) : convolve(input.local, filter.local, options);
  if (!piece) return piece.status();
  return make_sharded(piece->dtype, *full, input.sharding, *piece);
}

}  // namespace rt::tpu::spmd
