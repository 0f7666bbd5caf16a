// Halo exchange plans for tiled SAME convolutions.
#include "spmd_halo.hpp"

namespace rt::tpu {
namespace {

const char* const kSpatialNames[2] = {"height", "width"};

// Pairs sending to the neighbour one tile further (+1) or nearer (-1) along `dim`.
void neighbour_pairs(const Sharding& sharding, unsigned dim, int direction, HaloStep& step) {
  int64_t tile[kMaxRank];
  const unsigned stride = sharding.device_stride(dim);
  for (unsigned device = 0; device < sharding.num_devices; ++device) {
    sharding.tile_of(device, tile);
    const int64_t neighbour = tile[dim] + direction;
    if (neighbour < 0 || neighbour >= sharding.partitions[dim]) continue;
    step.pairs[2 * step.num_pairs] = device;
    step.pairs[2 * step.num_pairs + 1] = direction > 0 ? device + stride : device - stride;
    ++step.num_pairs;
  }
}

// Up to two steps along `dim` (spatial index s = dim - 1): the last `before` interior rows go to the
// next tile (its leading halo), the first `after` go to the previous one (its trailing halo).
void add_steps(const Sharding& sharding, unsigned dim, HaloPlan& plan) {
  const unsigned s = dim - 1;
  const int64_t size = plan.shard.dims[dim];
  if (sharding.partitions[dim] == 1) return;
  if (plan.before[s] > 0) {
    HaloStep& step = plan.steps[plan.num_steps++];
    step.dim = dim, step.width = plan.before[s];
    step.send_begin = size, step.receive_begin = 0;  // interior [before, before + size): its last `before`
    neighbour_pairs(sharding, dim, +1, step);
  }
  if (plan.after[s] > 0) {
    HaloStep& step = plan.steps[plan.num_steps++];
    step.dim = dim, step.width = plan.after[s];
    step.send_begin = plan.before[s], step.receive_begin = plan.before[s] + size;
    neighbour_pairs(sharding, dim, -1, step);
  }
}

Status check_sharding(const Shape& full_input, const Sharding& sharding) {
  if (full_input.rank != 4)
    return invalid_argument("conv2d over logical devices: the input must be NHWC (rank 4), got shape {}",
                            full_input.sizes());
  if (sharding.kind != ShardingKind::kTiled || sharding.rank != 4)
    return invalid_argument("conv2d over logical devices: a halo plan needs a rank-4 tiled input, got one {}",
                            sharding_text(sharding).view());
  return Status::ok();
}

// The padding before the first row (column) of dimension s, as conv2d pads (TF's SAME rule).
int64_t pad_before(const Conv2dOptions& options, unsigned s, int64_t in, int64_t out, int64_t effective) {
  if (options.padding == ConvPadding::kExplicit) return options.explicit_padding[s][0];
  if (options.padding == ConvPadding::kValid) return 0;
  const int64_t total = (out - 1) * options.strides[s] + effective - in;
  return total > 0 ? total / 2 : 0;
}

struct Reach {
  int64_t before, after;
};

// How far past its shard any tile's window reaches, before and after (at least 0).
Reach window_reach(int64_t pieces, int64_t size, int64_t pad, int64_t step, int64_t window) {
  const int64_t first_after = window - pad - size;  // tile 0's window end past its shard's
  Reach reach{pad, first_after};
  if (pieces > 1) {
    const int64_t last = pieces - 1;
    reach.before = step >= 0 ? pad : pad - last * step;
    reach.after = step >= 0 ? first_after + last * step : first_after;
  }
  reach.before = reach.before > 0 ? reach.before : 0;
  reach.after = reach.after > 0 ? reach.after : 0;
  return reach;
}

Status plan_dimension(const Sharding& sharding, const Shape& full_input, int64_t full_out, int64_t kernel,
                      const Conv2dOptions& options, unsigned s, HaloPlan& plan) {
  const unsigned dim = s + 1;
  const int64_t pieces = sharding.partitions[dim], size = plan.shard.dims[dim];
  if (full_out % pieces != 0 || full_out == 0)
    return Status::error(StatusCode::kUnimplemented,
                         "conv2d over logical devices: the output's {} ({}) does not split evenly into the input's {} "
                         "pieces along it",
                         kSpatialNames[s], full_out, pieces);
  const int64_t effective = (kernel - 1) * options.dilations[s] + 1;
  const int64_t pad = pad_before(options, s, full_input.dims[dim], full_out, effective);
  plan.out_tile[s] = full_out / pieces;
  plan.window[s] = (plan.out_tile[s] - 1) * options.strides[s] + effective;
  plan.tile_step[s] = plan.out_tile[s] * options.strides[s] - size;
  const Reach reach = window_reach(pieces, size, pad, plan.tile_step[s], plan.window[s]);
  if (pieces > 1 && (reach.before > size || reach.after > size))
    return Status::error(StatusCode::kUnimplemented,
                         "conv2d over logical devices: a {}-tap kernel needs a halo of {} before and {} after along "
                         "the {}, wider than a shard's {} (split the {} into fewer pieces)",
                         kernel, reach.before, reach.after, kSpatialNames[s], size, kSpatialNames[s]);
  plan.before[s] = reach.before;
  plan.after[s] = reach.after;
  plan.first_begin[s] = reach.before - pad;
  plan.extended.dims[dim] = plan.extended.real[dim] = size + reach.before + reach.after;
  return Status::ok();
}

Result<Tensor> strip(const HaloPlan& plan, const HaloStep& step, const Tensor& extended, int64_t begin) {
  Result<Tensor> view = extended.slice(step.dim, begin, begin + step.width);
  if (!view || step.dim != 1) return view;
  return view->slice(2, plan.before[1], plan.before[1] + plan.shard.dims[2]);  // height steps: interior columns
}

}  // namespace

Result<HaloPlan> plan_conv_halo(const Shape& full_input, const Sharding& sharding, int64_t kernel_h, int64_t kernel_w,
                                const Conv2dOptions& options) {
  RT_RETURN_IF_ERROR(check_sharding(full_input, sharding));
  const int64_t kernel[2] = {kernel_h, kernel_w};
  for (unsigned s = 0; s < 2; ++s)
    if (kernel[s] < 1) return invalid_argument("conv2d over logical devices: kernel {} is {}", kSpatialNames[s], kernel[s]);
  Shape filter = full_input;
  filter.dims[0] = kernel_h, filter.dims[1] = kernel_w, filter.dims[2] = full_input.dims[3], filter.dims[3] = 1;
  Result<Shape> out = conv2d_output_shape(full_input, filter, options);
  if (!out) return out.status();
  HaloPlan plan;
  plan.shard = shard_shape(full_input, sharding);
  plan.extended = plan.shard;
  for (unsigned s = 0; s < 2; ++s)
    RT_RETURN_IF_ERROR(plan_dimension(sharding, full_input, out->dims[s + 1], kernel[s], options, s, plan));
  add_steps(sharding, 1, plan);
  add_steps(sharding, 2, plan);
  return plan;
}

Result<HaloPlan> plan_halo(const Shape& full_input, const Sharding& sharding, int64_t kernel_h, int64_t kernel_w) {
  Conv2dOptions same;
  same.padding = ConvPadding::kSame;
  return plan_conv_halo(full_input, sharding, kernel_h, kernel_w, same);
}

Result<Tensor> halo_window(const HaloPlan& plan, const Sharding& sharding, unsigned logical_device,
                           const Tensor& extended) {
  int64_t tile[kMaxRank];
  sharding.tile_of(logical_device, tile);
  Tensor view = extended;
  for (unsigned s = 0; s < 2; ++s) {
    const int64_t begin = plan.window_begin(s, tile[s + 1]);
    Result<Tensor> sliced = view.slice(s + 1, begin, begin + plan.window[s]);
    if (!sliced) return sliced;
    view = *sliced;
  }
  return view;
}

Result<Tensor> halo_interior(const HaloPlan& plan, const Tensor& extended) {
  Result<Tensor> rows = extended.slice(1, plan.before[0], plan.before[0] + plan.shard.dims[1]);
  if (!rows) return rows;
  return rows->slice(2, plan.before[1], plan.before[1] + plan.shard.dims[2]);
}

Result<Tensor> halo_send_strip(const HaloPlan& plan, const HaloStep& step, const Tensor& extended) {
  return strip(plan, step, extended, step.send_begin);
}

Result<Tensor> halo_receive_strip(const HaloPlan& plan, const HaloStep& step, const Tensor& extended) {
  return strip(plan, step, extended, step.receive_begin);
}

}  // namespace rt::tpu
