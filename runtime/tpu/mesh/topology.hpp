// Topology: the board's cores seen as TPU devices in a 4-D mesh (x, y, z, core-within-chip), as
// TensorFlow's tf.tpu.experimental.Topology describes a TPU slice: a mesh shape plus, for every task
// (host) and TPU device of that task, the device's mesh coordinates. A board has one task (task 0)
// whose TPU devices are the cores; a core's id is its TPU device ordinal.
//
// Default layout (Topology::for_cores), the rule a board uses unless it defines its own:
//   - cores_per_chip = 2 when the core count is even, else 1 (TPU v2/v3 chips have 2 cores, v4 has 1);
//   - the chips form an [x, y, z] box with x <= y <= z, as close to a cube as divisors allow
//     (x: largest divisor with x^3 <= chips; y: largest divisor of chips/x with y^2 <= chips/x);
//   - so 1 -> [1,1,1,1], 2 -> [1,1,1,2], 3 -> [1,1,3,1], 4 -> [1,1,2,2], 6 -> [1,1,3,2],
//     8 -> [1,2,2,2], 9 -> [1,3,3,1], 12 -> [1,2,3,2], 15 -> [1,3,5,1], 16 -> [2,2,2,2].
//   TF itself only meets meshes that real TPU slices report; odd sizes are legal there too (v4 slices
//   have 1 core per chip, and its ring ordering treats odd dimensions in plain x-fastest order).
//   - Core (TPU ordinal) d sits at core = d % C, x = (d / C) % X, y = (d / (C*X)) % Y, z = d / (C*X*Y):
//     core-within-chip fastest, then x, y, z. This is the order a TPU host numbers its devices and the
//     order DeviceAssignment enumerates replicas in, so the default assignment puts replica r on core r.
//
// Validation and error texts follow TF's Topology constructor and TopologyProto parser; the runtime
// additionally rejects what TF lets slip into numpy errors or silent overwrites (coordinates outside
// the mesh, two devices at one coordinate) and what does not fit its fixed tables.
//
// TF's lookups index numpy arrays (device_coordinates[task, device]: device_coordinates_at here;
// _topology_tasks / _topology_devices[tuple(coordinates)] behind the *_at_coordinates lookups), so
// they follow numpy: a negative index counts from the end of its axis (-1 is the last), and one
// outside [-size, size) gives numpy's IndexError text ("index -3 is out of bounds for axis 1 with
// size 2"). The runtime's own lookups (core_at_coordinates, device_coordinates) take no negatives.
#pragma once
#include "hal/core.hpp"
#include "hal/support/array.hpp"
#include "hal/support/result.hpp"
#include "runtime/pod/pod_devices.hpp"
#include "topology_proto.hpp"

namespace rt::tpu {

inline constexpr int kMeshRank = 4;                                   // x, y, z, core
// TPU devices a Topology holds: a whole pod's (a pod of K boards is one topology of K tasks).
inline constexpr int kMaxTpuDevices = static_cast<int>(kMaxPodDevices);
inline constexpr int kMaxMeshCells = 64;  // mesh cells, present or missing
static_assert(kMaxMeshCells >= kMaxTpuDevices, "a full pod's mesh (for_pod) fits the cell tables");

// Mesh coordinates of one TPU device: (x, y, z, core).
using MeshCoordinates = Array<int32_t, kMeshRank>;
using MeshShape = Array<int32_t, kMeshRank>;

// Device names as TF prints them ("/task:0/device:TPU:3", "/job:worker/task:0/device:CPU:0").
using DeviceName = FixedString<96>;

class Topology {
 public:
  // The default topology of a board with `cores` cores (1..16), one task, rule above.
  static Result<Topology> for_cores(int cores);
  // The topology of a pod of `num_tasks` boards of `cores_per_task` cores each (issue 22): each board
  // keeps its default mesh [X, Y, Z, C] and the boards are stacked along z into [X, Y, Z * tasks, C];
  // device d of task t sits at d's coordinates on its board with z + t * Z. The default replica order
  // (core fastest, then x, y, z) is so task-major: replica r runs on task r / cores_per_task.
  static Result<Topology> for_pod(int num_tasks, int cores_per_task);
  // The mesh shape that rule gives; `cores` must be 1..16.
  static MeshShape default_mesh_shape(int cores);

  // TF's Topology(mesh_shape, device_coordinates) / TopologyProto: `device_coordinates` is row-major
  // [num_tasks][num_tpus_per_task][4].
  static Result<Topology> create(Span<const int32_t> mesh_shape, int num_tasks, int num_tpus_per_task,
                                 Span<const int32_t> device_coordinates);
  // One task; its device count is device_coordinates.size() / 4.
  static Result<Topology> create(Span<const int32_t> mesh_shape, Span<const int32_t> device_coordinates);
  // TF's Topology(serialized=...): a serialized TopologyProto (topology_proto.hpp), checked with TF's
  // _parse_topology texts (mesh_shape, num_tasks, num_tpu_devices_per_task, the coordinates' count and
  // sign), then as create() checks it.
  static Result<Topology> from_serialized(Span<const uint8_t> serialized);
  // TF's topology.serialized(): the TopologyProto of this topology's mesh_shape, num_tasks,
  // num_tpus_per_task and device_coordinates, as TF's serializer writes it. (TF hands back the bytes a
  // topology was parsed from; here they are written again, the same bytes unless the given ones used
  // another encoding of the same values or carried other fields.)
  TopologyProtoBytes serialized() const;

  Span<const int32_t> mesh_shape() const { return mesh_shape_.span(); }
  int mesh_rank() const { return kMeshRank; }
  int num_tasks() const { return num_tasks_; }
  int num_tpus_per_task() const { return num_tpus_per_task_; }
  int num_devices() const { return num_tasks_ * num_tpus_per_task_; }
  // Product of the mesh shape: the devices a full mesh would have.
  int mesh_size() const;

  // device_coordinates[task][device] for indices in range (the runtime's form).
  const MeshCoordinates& device_coordinates(int task, int device) const {
    return device_coordinates_[task * num_tpus_per_task_ + device];
  }
  // TF's topology.device_coordinates[task, device], numpy's indexing (negative indices wrap).
  Result<MeshCoordinates> device_coordinates_at(int task, int device) const;
  // Mesh cells without a device, in row-major mesh order (TF's missing_devices rows).
  int num_missing_devices() const;
  MeshCoordinates missing_device(int index) const;

  // TF's lookups. Coordinates must have 4 entries, each in [-size, size) of its axis with negative
  // ones counting from the end (numpy's IndexError text otherwise). A missing device gives task and
  // ordinal -1, as in TF.
  Result<int> task_ordinal_at_coordinates(Span<const int32_t> coordinates) const;
  Result<int> tpu_device_ordinal_at_coordinates(Span<const int32_t> coordinates) const;
  // `job` empty = no job (TF's job=None).
  Result<DeviceName> cpu_device_name_at_coordinates(Span<const int32_t> coordinates, StringView job = {}) const;
  Result<DeviceName> tpu_device_name_at_coordinates(Span<const int32_t> coordinates, StringView job = {}) const;

  // The runtime's core id of the device at `coordinates`: task * num_tpus_per_task + TPU ordinal (with
  // one task: the ordinal). Missing devices and negative coordinates are errors here.
  Result<int> core_at_coordinates(Span<const int32_t> coordinates) const;
  // Coordinates of core `core` (0 <= core < num_devices()).
  const MeshCoordinates& coordinates_of_core(int core) const { return device_coordinates_[core]; }

 private:
  Topology() = default;
  // Row-major mesh cell of `coordinates` under numpy's indexing (the lookups' checks and texts); with
  // `wrap_negative` false a negative coordinate is the runtime's error instead.
  Result<int> cell_at(Span<const int32_t> coordinates, bool wrap_negative = true) const;
  Status index_devices();

  MeshShape mesh_shape_{};
  int num_tasks_ = 0;
  int num_tpus_per_task_ = 0;
  MeshCoordinates device_coordinates_[kMaxTpuDevices] = {};
  int8_t task_at_cell_[kMaxMeshCells] = {};    // -1: missing
  int8_t device_at_cell_[kMaxMeshCells] = {};  // -1: missing
};

// numpy's str() of a 1-D int32 array, as TF's error texts show arrays: "[1 2 2 2]", "[ 1 -1  1  1]",
// wrapped at 75 columns like numpy. And a numpy shape tuple: "(3,)", "(2, 4)".
using NumpyText = FixedString<256>;
NumpyText numpy_array_text(Span<const int32_t> values);
NumpyText numpy_shape_text(Span<const int32_t> shape);

// numpy's rule for an integer index into axis `axis` of `size` entries: a negative index counts from
// the end; one outside [-size, size) gives numpy's IndexError text (code kOutOfRange).
Result<int> numpy_index(int index, int axis, int size);

}  // namespace rt::tpu
