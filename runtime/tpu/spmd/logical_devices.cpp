// Sharding annotations: TF's checks, the row-major device layout and shard views.
#include "logical_devices.hpp"

#include "runtime/ops/dynamic_shape.hpp"

namespace rt::tpu {
namespace {

// np.prod(partition_dimensions) as Python prints it: an int, or 1.0 for an empty list.
using ProductText = FixedString<32>;
ProductText product_text(Span<const int64_t> values, int64_t product) {
  ProductText text;
  if (values.empty()) format_to(text, "1.0");
  else format_to(text, "{}", product);
  return text;
}

// TF checks the known dimensions only (`if dim_size is None: continue`): a padded one is unknown.
Status check_divisible(const Shape& shape, Span<const int64_t> partition_dimensions) {
  for (unsigned d = 0; d < shape.rank; ++d) {
    if (is_padded(shape, d)) continue;
    const int64_t split = partition_dimensions[d];
    if (split == 0)
      return invalid_argument("`partition_dimensions[{}]` is 0: a dimension cannot be split into 0 pieces (Python "
                              "raises ZeroDivisionError here)",
                              d);
    if (shape.dims[d] % split != 0)
      return invalid_argument("Tensor shape at `partition_dimensions[{}]` must be divisible by corresponding value "
                              "specified by `partition_dimensions` ({}). Received: {}.",
                              d, split, shape.dims[d]);
  }
  return Status::ok();
}

Status check_product(Span<const int64_t> partition_dimensions, unsigned num_logical_devices) {
  int64_t product = 1;
  for (int64_t split : partition_dimensions) product *= split;
  if (product == static_cast<int64_t>(num_logical_devices)) return Status::ok();
  return invalid_argument("The product of `partition_dimensions` should be the same as the number of logical devices "
                          "(={}). Received `partition_dimensions`={},and their product is {}.",
                          num_logical_devices, partition_dimensions,
                          product_text(partition_dimensions, product).view());
}

Status check_positive(Span<const int64_t> partition_dimensions) {
  for (size_t d = 0; d < partition_dimensions.size(); ++d)
    if (partition_dimensions[d] < 1)
      return invalid_argument("`partition_dimensions` must be positive; got {} (entry {} is {})", partition_dimensions,
                              d, partition_dimensions[d]);
  return Status::ok();
}

}  // namespace

const char* sharding_kind_name(ShardingKind kind) {
  switch (kind) {
    case ShardingKind::kReplicated: return "replicated";
    case ShardingKind::kMaximal: return "maximal";
    case ShardingKind::kTiled: return "tiled";
  }
  return "unknown";
}

bool Sharding::holds(unsigned logical_device) const {
  return kind != ShardingKind::kMaximal || logical_device == device;
}

unsigned Sharding::replication() const {
  if (kind == ShardingKind::kReplicated) return num_devices;
  if (kind == ShardingKind::kMaximal) return 1;
  int64_t tiles = 1;
  for (unsigned d = 0; d < rank; ++d) tiles *= partitions[d];
  return static_cast<unsigned>(num_devices / tiles);
}

void Sharding::grid_coordinates(unsigned logical_device, int64_t* coordinates) const {
  int64_t rest = logical_device;
  for (unsigned g = grid_rank; g-- > 0;) {
    coordinates[g] = rest % grid[g];
    rest /= grid[g];
  }
}

void Sharding::tile_of(unsigned logical_device, int64_t* tile) const {
  int64_t coordinates[kMaxRank];
  grid_coordinates(logical_device, coordinates);
  for (unsigned d = 0; d < rank; ++d) tile[d] = grid_dim[d] == kNoGridDim ? 0 : coordinates[grid_dim[d]];
}

unsigned Sharding::device_at(const int64_t* tile) const {
  int64_t coordinates[kMaxRank] = {};
  for (unsigned d = 0; d < rank; ++d)
    if (grid_dim[d] != kNoGridDim) coordinates[grid_dim[d]] = tile[d];
  int64_t device = 0;
  for (unsigned g = 0; g < grid_rank; ++g) device = device * grid[g] + coordinates[g];
  return static_cast<unsigned>(device);
}

unsigned Sharding::device_stride(unsigned dim) const {
  if (dim >= rank || grid_dim[dim] == kNoGridDim) return 0;
  int64_t stride = 1;
  for (unsigned g = static_cast<unsigned>(grid_dim[dim]) + 1; g < grid_rank; ++g) stride *= grid[g];
  return static_cast<unsigned>(stride);
}

bool Sharding::operator==(const Sharding& other) const {
  if (kind != other.kind || num_devices != other.num_devices) return false;
  if (kind == ShardingKind::kMaximal) return device == other.device;
  if (kind == ShardingKind::kReplicated) return true;
  if (rank != other.rank || grid_rank != other.grid_rank) return false;
  for (unsigned d = 0; d < rank; ++d)
    if (partitions[d] != other.partitions[d] || grid_dim[d] != other.grid_dim[d]) return false;
  for (unsigned g = 0; g < grid_rank; ++g)
    if (grid[g] != other.grid[g]) return false;
  return true;
}

Result<Sharding> tile_sharding(const Shape& shape, Span<const int64_t> partition_dimensions,
                               unsigned num_logical_devices) {
  if (partition_dimensions.size() != shape.rank)
    return invalid_argument("Length of `partition_dimensions` must equal to the rank of `tensor.shape` ({}). Received "
                            "len(partition_dimensions)={}.",
                            shape.rank, partition_dimensions.size());
  RT_RETURN_IF_ERROR(check_divisible(shape, partition_dimensions));
  RT_RETURN_IF_ERROR(check_product(partition_dimensions, num_logical_devices));
  RT_RETURN_IF_ERROR(check_positive(partition_dimensions));
  Sharding sharding;
  sharding.kind = ShardingKind::kTiled;
  sharding.num_devices = num_logical_devices;
  sharding.rank = sharding.grid_rank = shape.rank;
  for (unsigned d = 0; d < shape.rank; ++d) {
    sharding.partitions[d] = sharding.grid[d] = partition_dimensions[d];
    sharding.grid_dim[d] = static_cast<int8_t>(d);
  }
  return sharding;
}

Result<Sharding> maximal_sharding(int64_t logical_device_id, unsigned num_logical_devices) {
  if (logical_device_id < 0 || logical_device_id >= static_cast<int64_t>(num_logical_devices))
    return invalid_argument("`logical_core_id` to assign must be lower then total number of logical devices per "
                            "replica. Received logical device id {} but there are only total of {} logical devices in "
                            "replica.",
                            logical_device_id, num_logical_devices);
  Sharding sharding;
  sharding.kind = ShardingKind::kMaximal;
  sharding.num_devices = num_logical_devices;
  sharding.device = static_cast<unsigned>(logical_device_id);
  return sharding;
}

Sharding replicated_sharding(unsigned num_logical_devices) {
  Sharding sharding;
  sharding.num_devices = num_logical_devices;
  return sharding;
}

int64_t shard_size(const Shape& full, const Sharding& sharding, unsigned dim) {
  const int64_t pieces = sharding.partitions_of(dim);
  return (full.dims[dim] + pieces - 1) / pieces;
}

bool has_uneven_shards(const Shape& full, const Sharding& sharding) {
  for (unsigned d = 0; d < full.rank; ++d)
    if (full.dims[d] % sharding.partitions_of(d) != 0) return true;
  return false;
}

int64_t piece_real_size(const Shape& full, unsigned dim, int64_t offset, int64_t size) {
  if (!is_padded(full, dim)) return size;
  const int64_t rest = full.real[dim] - offset;
  return rest < 0 ? 0 : rest < size ? rest : size;
}

Shape shard_shape(const Shape& full, const Sharding& sharding) {
  Shape shape = full;
  for (unsigned d = 0; d < shape.rank; ++d) shape.dims[d] = shape.real[d] = shard_size(full, sharding, d);
  return shape;
}

Shape shard_shape(const Shape& full, const Sharding& sharding, unsigned logical_device) {
  Shape shape = shard_shape(full, sharding);
  for (unsigned d = 0; d < shape.rank; ++d)
    shape.real[d] = piece_real_size(full, d, shard_offset(full, sharding, logical_device, d), shape.dims[d]);
  return shape;
}

int64_t shard_offset(const Shape& full, const Sharding& sharding, unsigned logical_device, unsigned dim) {
  if (sharding.kind != ShardingKind::kTiled) return 0;
  int64_t tile[kMaxRank];
  sharding.tile_of(logical_device, tile);
  return tile[dim] * shard_size(full, sharding, dim);
}

Result<Tensor> shard_view(const Tensor& full, const Sharding& sharding, unsigned logical_device) {
  if (!sharding.holds(logical_device))
    return invalid_argument("logical device {} holds no part of a tensor that is {}", logical_device,
                            sharding_text(sharding).view());
  if (sharding.kind != ShardingKind::kTiled) return full;
  if (sharding.rank != full.shape.rank)
    return invalid_argument("a sharding of rank {} does not fit a tensor of shape {}", sharding.rank,
                            full.shape.sizes());
  Tensor view = full;
  const Shape piece = shard_shape(full.shape, sharding, logical_device);
  for (unsigned d = 0; d < full.shape.rank; ++d) {
    const int64_t size = full.shape.dims[d];
    const int64_t offset = shard_offset(full.shape, sharding, logical_device, d);
    const int64_t begin = offset < size ? offset : size;
    const int64_t end = offset + piece.dims[d] < size ? offset + piece.dims[d] : size;
    Result<Tensor> sliced = view.slice(d, begin, end);
    if (!sliced) return sliced;
    view = *sliced;
    view.shape.real[d] = piece.real[d] < end - begin ? piece.real[d] : end - begin;
  }
  return view;
}

ShardingText sharding_text(const Sharding& sharding) {
  ShardingText text;
  switch (sharding.kind) {
    case ShardingKind::kReplicated:
      format_to(text, "replicated over {} logical devices", sharding.num_devices);
      break;
    case ShardingKind::kMaximal:
      format_to(text, "maximal on logical device {} of {}", sharding.device, sharding.num_devices);
      break;
    case ShardingKind::kTiled:
      format_to(text, "tiled {} over {} logical devices", Span<const int64_t>(sharding.partitions, sharding.rank),
                sharding.num_devices);
      if (sharding.replication() > 1) format_to(text, ", each tile on {} of them", sharding.replication());
      break;
  }
  return text;
}

}  // namespace rt::tpu
