// Sharding algebra: the shardings an SPMD op's result gets from its operands' and the device groups
// its collectives run over, as XLA's hlo_sharding_util does for the SPMD partitioner:
//   - on_grid: a sharding over an operand's device grid with the tensor dimensions mapped to grid
//     dimensions of the caller's choice; grid dimensions left unmapped hold replicas of each tile
//     (PartiallyReplicateTiledShardingOnDims, RemoveShapeDimensions);
//   - without_dims: a reduction's result: the reduced dimensions lose their tiling (size 1 with
//     keepdims, gone without), their grid dimensions become replication;
//   - grid_groups: the groups of devices that differ only along some grid dimensions (the replica
//     groups of the all-reduce that combines partial results across those dimensions), each group's
//     members in ascending device id, so a reduction combines the tiles in ascending tile order.
// A tiled sharding whose every dimension has one piece is canonicalised to replicated. HAL-free.
#pragma once
#include "logical_devices.hpp"
#include "runtime/collectives/groups.hpp"

namespace rt::tpu {

// A sharding of a rank-`rank` tensor over `source`'s grid (source tiled): dimension d is tiled along
// grid dimension grid_dim_of[d] (Sharding::kNoGridDim: not tiled).
Sharding on_grid(const Sharding& source, unsigned rank, const int8_t* grid_dim_of);

// `source` (any kind) after reducing the dimensions marked in `reduced` (rank entries).
Sharding without_dims(const Sharding& source, const bool* reduced, bool keepdims);

// A bit set of grid dimensions: bit g for grid dimension g.
using GridMask = uint32_t;
// The grid dimensions `source`'s dimensions marked in `dims` are tiled along.
GridMask grid_mask_of(const Sharding& source, const bool* dims);

// The replica groups (logical device ids) of the devices that share every grid coordinate outside
// `mask`. Valid while the object lives (the assignment points into it).
class GridGroups {
 public:
  GridGroups(const Sharding& tiled, GridMask mask);
  const GroupAssignment& assignment() const { return assignment_; }
  unsigned group_size() const { return assignment_.group_size; }

 private:
  uint32_t ids_[kMaxLogicalDevices] = {};
  GroupAssignment assignment_;
};

}  // namespace rt::tpu
