// The logical-device sharding functions and gathering sharded tensors back.
#include "runtime/tpu/spmd/spmd_tensor.hpp"

#include "runtime/ops/copy.hpp"
#include "runtime/tpu/spmd/padded_piece.hpp"

namespace rt::tpu {
namespace {

// `tile` cut to the sizes of `destination` (its leading corner: an uneven piece's elements past the
// tensor's end are padding and are dropped).
Result<Tensor> leading_corner(const Tensor& tile, const Tensor& destination) {
  Tensor corner = tile;
  for (unsigned d = 0; d < tile.shape.rank; ++d) {
    Result<Tensor> sliced = corner.slice(d, 0, destination.shape.dims[d]);
    if (!sliced) return sliced;
    corner = *sliced;
  }
  return corner;
}

// The tiles of an all_gather result (device order, each contiguous) copied into place in `whole`.
Status place_tiles(const Tensor& gathered, const ShardedTensor& x, const Tensor& whole) {
  const Shape piece = shard_shape(x.shape, x.sharding);
  const size_t piece_bytes = static_cast<size_t>(piece.num_elements()) * dtype_size(x.dtype);
  for (unsigned device = 0; device < x.sharding.num_devices; ++device) {
    const Tensor tile = Tensor::contiguous(x.dtype, piece, gathered.data + device * piece_bytes);
    Result<Tensor> destination = shard_view(whole, x.sharding, device);
    if (!destination) return destination.status();
    Result<Tensor> source = leading_corner(tile, *destination);
    if (!source) return source.status();
    RT_RETURN_IF_ERROR(copy(*source, *destination));
  }
  return Status::ok();
}

Result<Tensor> gather_tiles(LogicalDevices& devices, const ShardedTensor& x) {
  Result<Tensor> gathered = devices.all_gather(x.local);
  if (!gathered) return gathered;
  Result<Tensor> whole = devices.arena().allocate_tensor(x.dtype, x.shape, "a gathered tensor");
  if (!whole) return whole;
  RT_RETURN_IF_ERROR(place_tiles(*gathered, x, *whole));
  return whole;
}

Result<Tensor> broadcast_from_holder(LogicalDevices& devices, const ShardedTensor& x) {
  Tensor mine = x.local;
  if (!x.has_local()) {  // broadcast needs a tensor of the right shape here; its values are replaced
    Result<Tensor> placeholder = devices.arena().allocate_tensor(x.dtype, x.shape, "a broadcast placeholder");
    if (!placeholder) return placeholder;
    mine = *placeholder;
  }
  return devices.broadcast(mine, x.sharding.device);
}

}  // namespace

ShardedTensor make_sharded(DType dtype, const Shape& shape, const Sharding& sharding, const Tensor& local) {
  ShardedTensor x;
  x.dtype = dtype;
  x.shape = shape;
  x.sharding = sharding;
  x.logical_device = logical_devices().logical_core();
  x.local = local;
  return x;
}

Result<ShardedTensor> split_to_logical_devices(const Tensor& t, Span<const int64_t> partition_dimensions) {
  LogicalDevices& devices = logical_devices();
  Result<Sharding> sharding = tile_sharding(t.shape, partition_dimensions, devices.num_logical_cores());
  if (!sharding) return sharding.status();
  Result<Tensor> view = shard_view(t, *sharding, devices.logical_core());
  if (!view) return view.status();
  const Shape piece = shard_shape(t.shape, *sharding, devices.logical_core());
  Result<Tensor> local = devices.arena().allocate_tensor(t.dtype, piece, "a logical device's shard");
  if (!local) return local.status();
  RT_RETURN_IF_ERROR(copy_into_corner(*view, *local));
  return make_sharded(t.dtype, t.shape, *sharding, *local);
}

Result<ShardedTensor> assign_to_logical_device(const Tensor& t, int64_t logical_core_id) {
  Result<Sharding> sharding = maximal_sharding(logical_core_id, logical_devices().num_logical_cores());
  if (!sharding) return sharding.status();
  return make_sharded(t.dtype, t.shape, *sharding, t);
}

ShardedTensor replicate_to_logical_devices(const Tensor& t) {
  return make_sharded(t.dtype, t.shape, replicated_sharding(logical_devices().num_logical_cores()), t);
}

Result<Tensor> gather_from_logical_devices(const ShardedTensor& x) {
  LogicalDevices& devices = logical_devices();
  switch (x.sharding.kind) {
    case ShardingKind::kTiled: return gather_tiles(devices, x);
    case ShardingKind::kMaximal: return broadcast_from_holder(devices, x);
    case ShardingKind::kReplicated: break;
  }
  return x.local;
}

}  // namespace rt::tpu
