// Sharding: how one tensor of a model-parallel computation is laid out over the logical devices
// (cores) of its replica, as XLA's OpSharding annotations that TPUStrategy's experimental_*
// logical-device functions create (TF_BEHAVIOUR.md section 6):
//   - tiled (experimental_split_to_logical_devices): the tensor is cut into equal pieces along each
//     dimension, partitions[d] pieces along dimension d; logical devices are laid out row-major over
//     that partition grid (last dimension fastest): [2, 4] -> [[0, 1, 2, 3], [4, 5, 6, 7]];
//   - maximal (experimental_assign_to_logical_device): the whole tensor lives on one logical device;
//   - replicated (experimental_replicate_to_logical_devices): every logical device holds all of it.
// A tiled sharding lays its devices out row-major over a device grid (XLA's tile assignment, always
// the iota order here). A sharding made by split_to_logical_devices has one grid dimension per tensor
// dimension; ops may leave grid dimensions that no tensor dimension is tiled along (a reduction over
// a split axis, a matmul's split contracting dimension): the devices along such a dimension hold the
// same tile (XLA's partially replicated tiling, "last_tile_dim_replicate", up to a device permutation).
// The checks and texts are TF's, in TF's order (tile_sharding, maximal_sharding). HAL-free.
#pragma once
#include "hal/core.hpp"
#include "runtime/tensor/tensor.hpp"

namespace rt::tpu {

inline constexpr unsigned kMaxLogicalDevices = hal::kMaxCores;

enum class ShardingKind : uint8_t { kReplicated, kMaximal, kTiled };
const char* sharding_kind_name(ShardingKind kind);

struct Sharding {
  ShardingKind kind = ShardingKind::kReplicated;
  unsigned num_devices = 1;           // logical devices of the replica
  unsigned device = 0;                // kMaximal: the logical device holding the tensor
  uint8_t rank = 0;                   // kTiled: the tensor's rank
  int64_t partitions[kMaxRank] = {};  // kTiled: pieces along each dimension (product * replication() = num_devices)
  // kTiled: the device grid (row-major, product = num_devices) and, per tensor dimension, the grid
  // dimension it is tiled along (kNoGridDim where partitions[d] == 1 and no grid dimension is its).
  uint8_t grid_rank = 0;
  int64_t grid[kMaxRank] = {};
  int8_t grid_dim[kMaxRank] = {};

  static constexpr int8_t kNoGridDim = -1;

  // Whether `logical_device` holds (part of) the tensor: all of them but under kMaximal.
  bool holds(unsigned logical_device) const;
  // Pieces along `dim`: 1 unless tiled.
  int64_t partitions_of(unsigned dim) const { return kind == ShardingKind::kTiled && dim < rank ? partitions[dim] : 1; }
  // How many devices hold each tile (kTiled: the grid dimensions no tensor dimension uses; 1 for
  // maximal, num_devices for replicated).
  unsigned replication() const;
  // kTiled: the tile (one index per dimension) of `logical_device`, and back (the lowest device
  // holding it).
  void tile_of(unsigned logical_device, int64_t* tile) const;
  unsigned device_at(const int64_t* tile) const;
  // kTiled: how far apart in device ids two tiles neighbouring along `dim` are.
  unsigned device_stride(unsigned dim) const;
  // kTiled: the grid coordinates of `logical_device`.
  void grid_coordinates(unsigned logical_device, int64_t* coordinates) const;
  bool operator==(const Sharding& other) const;
};

// TF's experimental_split_to_logical_devices checks, in its order:
//   1. "Length of `partition_dimensions` must equal to the rank of `tensor.shape` ({rank}). Received len(partition_dimensions)={n}."
//   2. per known dimension: "Tensor shape at `partition_dimensions[{i}]` must be divisible by corresponding value specified by `partition_dimensions` ({p}). Received: {size}."
//   3. "The product of `partition_dimensions` should be the same as the number of logical devices (={n}). Received `partition_dimensions`={dims},and their product is {product}."
// A zero entry (Python's ZeroDivisionError in step 2) and negative entries (numpy's reshape error
// after step 3) are errors with the runtime's own texts. Step 2 skips an unknown dimension (TF's
// None): here one that replicate padded to its maximum_shapes (Shape::real[d] < dims[d], a dynamic
// size); such a dimension may split unevenly (uneven shards, below).
Result<Sharding> tile_sharding(const Shape& shape, Span<const int64_t> partition_dimensions,
                               unsigned num_logical_devices);
// TF's experimental_assign_to_logical_device check: "`logical_core_id` to assign must be lower then
// total number of logical devices per replica. Received logical device id {} but there are only
// total of {} logical devices in replica."
Result<Sharding> maximal_sharding(int64_t logical_device_id, unsigned num_logical_devices);
Sharding replicated_sharding(unsigned num_logical_devices);

// Pieces, even and uneven. A dimension of size D tiled into p pieces gives every piece
// c = ceil(D / p) elements, as XLA's SPMD partitioner pads the dimension to p c: piece t covers
// [t c, (t + 1) c), and its elements past D are padding (zeros where split_to_logical_devices
// made them). Each piece carries its real sizes (Shape::real): along a padded dimension of real
// size R, piece t holds min(c, max(0, R - t c)) real elements (the last pieces fewer, possibly
// none); along an unpadded one all c. Only padded dimensions split unevenly (tile_sharding's check
// 2), so a piece's elements past D are always padding.

// c: the elements every piece has along `dim` (all of them unless tiled along it).
int64_t shard_size(const Shape& full, const Sharding& sharding, unsigned dim);
// Whether a tiled dimension of `full` does not divide evenly into its pieces.
bool has_uneven_shards(const Shape& full, const Sharding& sharding);
// The real elements of a piece of `size` elements starting at `offset` along `dim` of `full`:
// min(size, max(0, real - offset)) if `full` is padded there, else size.
int64_t piece_real_size(const Shape& full, unsigned dim, int64_t offset, int64_t size);

// The sizes every piece of a tensor shaped `full` has (full's own unless tiled), real sizes equal
// to the sizes.
Shape shard_shape(const Shape& full, const Sharding& sharding);
// The shape of `logical_device`'s piece: shard_shape with that piece's real sizes.
Shape shard_shape(const Shape& full, const Sharding& sharding, unsigned logical_device);
// Where that piece starts along `dim` (0 unless tiled): its tile index times shard_size.
int64_t shard_offset(const Shape& full, const Sharding& sharding, unsigned logical_device, unsigned dim);
// The part of `full` that `logical_device`'s piece covers: the piece's sizes, cut where an uneven
// dimension ends (the last pieces' views are shorter, possibly empty), with the piece's real sizes;
// an error for a device a kMaximal sharding leaves out.
Result<Tensor> shard_view(const Tensor& full, const Sharding& sharding, unsigned logical_device);

// "tiled [1, 2, 4, 1] over 8 logical devices", "maximal on logical device 3 of 8", "replicated over 8
// logical devices", for messages.
using ShardingText = FixedString<96>;
ShardingText sharding_text(const Sharding& sharding);

}  // namespace rt::tpu
