// DeviceAssignment: which TPU core (mesh coordinates) runs each logical core of each replica, as
// TensorFlow's tf.tpu.experimental.DeviceAssignment: core_assignment[num_replicas][cores_per_replica][4].
//
// build() reproduces TF's device_assignment(topology, computation_shape, computation_stride,
// num_replicas, device_order_mode) with its validation and error texts:
//   - a replica occupies a block of computation_shape cores spaced computation_stride apart (its
//     footprint is shape * stride); replica_counts = (mesh / footprint) * stride replicas fit;
//   - replicas are packed into a replica_shape chosen "as close to a cube as possible" (TF's
//     heuristic: visit dimensions by increasing replica count, core dimension first on ties), then
//     numbered in mixed radix with the core digit fastest, then x, y, z; replica r's block starts at
//     (pos / stride) * footprint + pos % stride and its logical cores are the row-major product of
//     range(0, shape_i * stride_i, stride_i) over the axes (core fastest);
//   - with full replication, no stride and computation_shape[3] == mesh_shape[3] (e.g. shape
//     [1,1,1,2] on a 2-core-per-chip mesh, or all ones on a 1-core-per-chip mesh), TF instead orders
//     the replicas along a ring through the chips (_ring_3d / _open_ring_2d) so that neighbouring
//     replicas are neighbouring chips; DeviceOrderMode::kRing forces that, kMesh disables it;
//   - on a topology with missing devices, replicas take the present devices in task/device order.
// TF's ceil(n ** (1 / d)) in the cube heuristic is computed exactly in integers; for every n < 1000
// (far beyond any mesh the runtime holds) that equals what Python's floating point gives.
//
// TF's coordinates() is core_assignment[replica, logical_core, :] and tpu_ordinal / host_device /
// tpu_device go through it, so they follow numpy's indexing: negative indices count from the end
// (-1 is the last replica / logical core), indices outside [-size, size) give numpy's IndexError text.
// lookup_replicas is a dict lookup in TF (no wrap-around): unknown keys, negative ones included, fail.
//
// Deviations, all documented at the functions: num_replicas kAllReplicas (= -1) asks for as many as
// fit (TF has no such value and rejects negatives); TF's asserts on degraded slices and the cases it
// leaves to numpy errors (indices out of range) or lets pass (a replica on a missing device, one core
// used twice, negative coordinates in an explicit core_assignment, which numpy would wrap) are error
// Statuses here; the "Odd dimension" warning of _ring_3d is not logged.
#pragma once
#include "topology.hpp"

namespace rt::tpu {

// TF's DeviceOrderMode.
enum class DeviceOrderMode : uint8_t {
  kAuto,  // form rings when TF's 3-D tiling applies
  kRing,  // always form rings; an error where the 3-D tiling does not apply
  kMesh,  // never form rings
};

// Replica ids in ascending order (lookup_replicas).
struct ReplicaList {
  int32_t ids[kMaxTpuDevices] = {};
  int size = 0;
  Span<const int32_t> span() const { return Span<const int32_t>(ids, size_t(size)); }
};

// What a core runs under an assignment: (replica, logical core), or nothing (replica -1).
struct CorePlacement {
  int replica = -1;
  int logical_core = -1;
  bool assigned() const { return replica >= 0; }
};

class DeviceAssignment {
 public:
  // num_replicas value asking build() for as many replicas as fit (runtime extension).
  static constexpr int kAllReplicas = -1;

  // TF's DeviceAssignment.build / device_assignment(). An empty span means TF's None (all ones).
  // TF's default of one replica is kept; pass kAllReplicas for every replica that fits.
  static Result<DeviceAssignment> build(const Topology& topology, Span<const int32_t> computation_shape = {},
                                        Span<const int32_t> computation_stride = {}, int num_replicas = 1,
                                        DeviceOrderMode device_order_mode = DeviceOrderMode::kAuto);
  // How many replicas of that shape and stride fit in the topology's mesh (TF's max_replicas), with
  // build()'s validation.
  static Result<int> max_replicas(const Topology& topology, Span<const int32_t> computation_shape = {},
                                  Span<const int32_t> computation_stride = {});
  // TF's DeviceAssignment(topology, core_assignment): `core_assignment` holds a row-major array of
  // shape `core_assignment_shape` (TF requires [num_replicas, num_cores_per_replica, 4]). Beyond TF,
  // every entry must name a present device by coordinates >= 0 and no device may appear twice.
  static Result<DeviceAssignment> create(const Topology& topology, Span<const int32_t> core_assignment,
                                         Span<const int32_t> core_assignment_shape);

  const Topology& topology() const { return topology_; }
  int num_replicas() const { return num_replicas_; }
  int num_cores_per_replica() const { return num_cores_per_replica_; }

  // core_assignment[replica][logical_core]; indices must be in range.
  const MeshCoordinates& core_assignment(int replica, int logical_core) const {
    return assignment_[replica * num_cores_per_replica_ + logical_core];
  }
  // TF's accessors, numpy's indexing: a negative index counts from the end; outside [-size, size),
  // numpy's IndexError text ("index -5 is out of bounds for axis 0 with size 4").
  Result<MeshCoordinates> coordinates(int replica, int logical_core) const;
  Result<int> tpu_ordinal(int replica = 0, int logical_core = 0) const;
  Result<DeviceName> host_device(int replica = 0, int logical_core = 0, StringView job = {}) const;
  Result<DeviceName> tpu_device(int replica = 0, int logical_core = 0, StringView job = {}) const;
  // Replicas (ascending) whose `logical_core` runs on a device of task `task_id` (TF's dict lookup:
  // negative ids do not wrap; none found is TF's ValueError text).
  Result<ReplicaList> lookup_replicas(int task_id, int logical_core) const;

  // For the runtime: the core id (Topology::core_at_coordinates) running (replica, logical_core),
  // indices in range; and what core `core` runs.
  int core_of(int replica, int logical_core) const { return core_ids_[replica * num_cores_per_replica_ + logical_core]; }
  CorePlacement placement_of_core(int core) const;

 private:
  explicit DeviceAssignment(const Topology& topology) : topology_(topology) {}
  // An assignment from row-major [replicas][cores_per_replica] coordinates; checks that they name
  // distinct present devices and fills the core id table.
  static Result<DeviceAssignment> assemble(const Topology& topology, int replicas, int cores_per_replica,
                                           const MeshCoordinates* entries);
  // Index into assignment_ of core_assignment[replica, logical_core] under numpy's indexing.
  Result<int> entry_at(int replica, int logical_core) const;

  Topology topology_;
  int num_replicas_ = 0;
  int num_cores_per_replica_ = 0;
  MeshCoordinates assignment_[kMaxTpuDevices] = {};
  int8_t core_ids_[kMaxTpuDevices] = {};
};

}  // namespace rt::tpu
