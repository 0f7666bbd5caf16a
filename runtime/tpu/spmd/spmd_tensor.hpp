// ShardedTensor: a tensor of a model-parallel computation as one logical device holds it: the whole
// tensor's dtype and shape, its Sharding (logical_devices.hpp) and this device's piece. Made by TF's
// TPUStrategy logical-device functions (TF_BEHAVIOUR.md section 6), called by the computation on every
// logical core of its replica (SPMD) with the same arguments:
//   split_to_logical_devices(t, partition_dimensions)  experimental_split_to_logical_devices: each
//       logical device gets its tile, copied into its core's arena (contiguous); a padded (dynamic)
//       dimension may split unevenly: every tile has ceil(D / p) elements along it, zeros past the
//       tensor's end, and the tile's real sizes (logical_devices.hpp, "uneven shards");
//   assign_to_logical_device(t, id)                      experimental_assign_to_logical_device: only
//       logical device `id` holds t (a view of t); the others hold nothing;
//   replicate_to_logical_devices(t)                      experimental_replicate_to_logical_devices:
//       every logical device holds all of t (a view).
// gather_from_logical_devices reassembles the whole tensor on every logical device (an all_gather
// of the tiles, or a broadcast from the one holding device), in the calling core's arena, with the
// whole tensor's real sizes (an uneven tile's elements past the tensor's end are dropped).
// The number of logical devices and the caller's id come from logical_devices() (one device outside
// a replicated computation). spmd_ops.hpp (elementwise, matmul, reductions, softmax) and
// spmd_conv2d.hpp compute on ShardedTensors.
#pragma once
#include "logical_devices_context.hpp"

namespace rt::tpu {

struct ShardedTensor {
  DType dtype = DType::kF32;
  Shape shape;               // the whole tensor's
  Sharding sharding;
  unsigned logical_device = 0;  // the device this value belongs to
  Tensor local;              // its piece (shard_shape(shape, sharding, logical_device), with its real
                             // sizes); unset where has_local() is false

  bool has_local() const { return sharding.holds(logical_device); }
};

Result<ShardedTensor> split_to_logical_devices(const Tensor& t, Span<const int64_t> partition_dimensions);
Result<ShardedTensor> assign_to_logical_device(const Tensor& t, int64_t logical_core_id);
ShardedTensor replicate_to_logical_devices(const Tensor& t);

// A ShardedTensor whose local piece is `local` (computed by an SPMD op): the caller's device id.
ShardedTensor make_sharded(DType dtype, const Shape& shape, const Sharding& sharding, const Tensor& local);

// The whole tensor on every logical device (a collective: every logical core must call it).
Result<Tensor> gather_from_logical_devices(const ShardedTensor& x);

}  // namespace rt::tpu
