// Result shardings over an operand's device grid, and the device groups along grid dimensions.
#include "sharding_algebra.hpp"

namespace rt::tpu {
namespace {

Sharding canonical(Sharding sharding) {
  for (unsigned d = 0; d < sharding.rank; ++d)
    if (sharding.partitions[d] > 1) return sharding;
  return replicated_sharding(sharding.num_devices);
}

}  // namespace

Sharding on_grid(const Sharding& source, unsigned rank, const int8_t* grid_dim_of) {
  Sharding sharding;
  sharding.kind = ShardingKind::kTiled;
  sharding.num_devices = source.num_devices;
  sharding.rank = static_cast<uint8_t>(rank);
  sharding.grid_rank = source.grid_rank;
  for (unsigned g = 0; g < source.grid_rank; ++g) sharding.grid[g] = source.grid[g];
  for (unsigned d = 0; d < rank; ++d) {
    sharding.grid_dim[d] = grid_dim_of[d];
    sharding.partitions[d] = grid_dim_of[d] == Sharding::kNoGridDim ? 1 : source.grid[grid_dim_of[d]];
  }
  return canonical(sharding);
}

Sharding without_dims(const Sharding& source, const bool* reduced, bool keepdims) {
  if (source.kind != ShardingKind::kTiled) return source;
  int8_t grid_dim_of[kMaxRank];
  unsigned rank = 0;
  for (unsigned d = 0; d < source.rank; ++d) {
    if (reduced[d] && !keepdims) continue;
    grid_dim_of[rank++] = reduced[d] ? Sharding::kNoGridDim : source.grid_dim[d];
  }
  return on_grid(source, rank, grid_dim_of);
}

GridMask grid_mask_of(const Sharding& source, const bool* dims) {
  GridMask mask = 0;
  if (source.kind != ShardingKind::kTiled) return mask;
  for (unsigned d = 0; d < source.rank; ++d)
    if (dims[d] && source.grid_dim[d] != Sharding::kNoGridDim && source.partitions[d] > 1)
      mask |= GridMask{1} << source.grid_dim[d];
  return mask;
}

GridGroups::GridGroups(const Sharding& tiled, GridMask mask) {
  unsigned group_size = 1;
  for (unsigned g = 0; g < tiled.grid_rank; ++g)
    if (mask & (GridMask{1} << g)) group_size *= static_cast<unsigned>(tiled.grid[g]);
  const unsigned n = tiled.kind == ShardingKind::kTiled ? tiled.num_devices : 1;
  // Devices in id order: a device whose masked coordinates are all 0 opens its group (the group's
  // members follow in ascending id); every other device joins the group its leader opened.
  unsigned next[kMaxLogicalDevices] = {};  // per group: how many members are placed
  unsigned group_of_leader[kMaxLogicalDevices] = {};
  unsigned num_groups = 0;
  for (unsigned device = 0; device < n; ++device) {
    int64_t coordinates[kMaxRank];
    tiled.grid_coordinates(device, coordinates);
    unsigned leader = device;
    for (unsigned g = 0, stride = 1; g < tiled.grid_rank; ++g) {
      const unsigned dim = tiled.grid_rank - 1 - g;
      if (mask & (GridMask{1} << dim)) leader -= static_cast<unsigned>(coordinates[dim]) * stride;
      stride *= static_cast<unsigned>(tiled.grid[dim]);
    }
    if (leader == device) group_of_leader[device] = num_groups++;
    const unsigned group = group_of_leader[leader];
    ids_[group * group_size + next[group]++] = device;
  }
  assignment_.ids = ids_;
  assignment_.num_groups = n == 0 ? 0 : num_groups;
  assignment_.group_size = group_size;
  if (n <= 1) assignment_ = GroupAssignment{};  // one device: the default group
}

}  // namespace rt::tpu
