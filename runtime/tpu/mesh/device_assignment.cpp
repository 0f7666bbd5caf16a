// DeviceAssignment: TF's layout algorithm (block packing and ring ordering), its checks with TF's
// error texts, and the lookups from (replica, logical core) to devices (numpy's indexing) and back.
#include "device_assignment.hpp"

namespace rt::tpu {

namespace {

int64_t product(Span<const int32_t> values) {
  int64_t result = 1;
  for (int32_t value : values) result *= value;
  return result;
}

// ---------------------------------------------------------------- request validation

// computation_shape / computation_stride after TF's checks, and what follows from them.
struct Request {
  MeshShape shape;
  MeshShape stride;
  MeshShape footprint;       // shape * stride: the cores one replica spans
  MeshShape replica_counts;  // (mesh / footprint) * stride: replicas that fit along each axis
  int max_replicas;
};

// An empty span is TF's None: all ones. Otherwise it must have one entry per mesh axis.
Status read_axis_vector(Span<const int32_t> given, const char* name, MeshShape& out) {
  if (given.empty()) {
    out = MeshShape{{1, 1, 1, 1}};
    return Status::ok();
  }
  if (given.size() != size_t(kMeshRank)) {
    const int32_t numpy_shape[] = {int32_t(given.size())};
    return invalid_argument("{} must have shape [{}]; got {}", name, kMeshRank, numpy_shape_text(numpy_shape));
  }
  for (int axis = 0; axis < kMeshRank; ++axis) out[axis] = given[axis];
  return Status::ok();
}

Status check_positive(const MeshShape& values, const char* name) {
  for (int32_t value : values)
    if (value < 1) return invalid_argument("{} must be positive; got {}={}", name, name, numpy_array_text(values.span()));
  return Status::ok();
}

Result<Request> check_request(const Topology& topology, Span<const int32_t> computation_shape,
                              Span<const int32_t> computation_stride) {
  Request request{};
  RT_RETURN_IF_ERROR(read_axis_vector(computation_shape, "computation_shape", request.shape));
  RT_RETURN_IF_ERROR(read_axis_vector(computation_stride, "computation_stride", request.stride));
  RT_RETURN_IF_ERROR(check_positive(request.shape, "computation_shape"));
  RT_RETURN_IF_ERROR(check_positive(request.stride, "computation_stride"));
  const Span<const int32_t> mesh = topology.mesh_shape();
  bool fits = true;
  for (int axis = 0; axis < kMeshRank; ++axis) {
    request.footprint[axis] = request.shape[axis] * request.stride[axis];
    fits = fits && request.footprint[axis] <= mesh[axis];
  }
  if (!fits)
    return invalid_argument("computation footprint {} does not fit in TPU topology shape {}",
                            numpy_array_text(request.footprint.span()), numpy_array_text(mesh));
  for (int axis = 0; axis < kMeshRank; ++axis)
    request.replica_counts[axis] = mesh[axis] / request.footprint[axis] * request.stride[axis];
  request.max_replicas = int(product(request.replica_counts.span()));
  return request;
}

// ---------------------------------------------------------------- replica shape (cube heuristic)

// Smallest k with k^root >= n: TF's ceil(n ** (1.0 / root)), exactly.
int32_t ceil_root(int32_t n, int root) {
  for (int32_t k = 1;; ++k) {
    int64_t raised = 1;
    for (int i = 0; i < root; ++i) raised *= k;
    if (raised >= n) return k;
  }
}

// TF's choice of how many replicas go along each axis: visit axes by increasing replica count (ties:
// core axis first, then x, y, z) and give each the d-th root of what remains, capped by the count.
MeshShape choose_replica_shape(const MeshShape& replica_counts, int num_replicas) {
  MeshShape replica_shape{{0, 0, 0, 0}};
  if (num_replicas <= 0) return replica_shape;
  int order[kMeshRank] = {3, 0, 1, 2};  // tie order: core, x, y, z
  for (int i = 1; i < kMeshRank; ++i)   // stable insertion sort by count keeps the tie order
    for (int j = i; j > 0 && replica_counts[order[j]] < replica_counts[order[j - 1]]; --j) {
      const int swapped = order[j];
      order[j] = order[j - 1];
      order[j - 1] = swapped;
    }
  int32_t remaining = num_replicas;
  for (int visited = 0; visited < kMeshRank; ++visited) {
    const int axis = order[visited];
    const int32_t target = ceil_root(remaining, kMeshRank - visited);
    replica_shape[axis] = target < replica_counts[axis] ? target : replica_counts[axis];
    remaining = (remaining + replica_shape[axis] - 1) / replica_shape[axis];
  }
  return replica_shape;
}

// ---------------------------------------------------------------- block layout

// Replica r's digits in mixed radix over replica_shape, core digit fastest, then x, y, z.
MeshShape replica_position(const MeshShape& replica_shape, int replica) {
  MeshShape position{};
  int rest = replica;
  position[3] = rest % replica_shape[3];
  rest /= replica_shape[3];
  for (int axis = 0; axis < 3; ++axis) {
    position[axis] = rest % replica_shape[axis];
    rest /= replica_shape[axis];
  }
  return position;
}

void block_layout(const Request& request, const MeshShape& replica_shape, int num_replicas, MeshCoordinates* out) {
  const int cores_per_replica = int(product(request.shape.span()));
  for (int replica = 0; replica < num_replicas; ++replica) {
    const MeshShape position = replica_position(replica_shape, replica);
    MeshShape offset{};
    for (int axis = 0; axis < kMeshRank; ++axis)
      offset[axis] = position[axis] / request.stride[axis] * request.footprint[axis] + position[axis] % request.stride[axis];
    for (int logical_core = 0; logical_core < cores_per_replica; ++logical_core) {
      MeshCoordinates& at = out[replica * cores_per_replica + logical_core];
      int rest = logical_core;  // row-major over computation_shape: core axis fastest
      for (int axis = kMeshRank - 1; axis >= 0; --axis) {
        at[axis] = rest % request.shape[axis] * request.stride[axis] + offset[axis];
        rest /= request.shape[axis];
      }
    }
  }
}

// ---------------------------------------------------------------- ring layout

struct Chip {
  int32_t x, y, z;
};

// Chips in ring order (TF's _ring_3d result).
struct ChipRing {
  Chip chips[kMaxTpuDevices];
  int size = 0;
  void add(int32_t x, int32_t y, int32_t z) {
    if (size < kMaxTpuDevices) chips[size++] = Chip{x, y, z};
  }
};

struct Pair {
  int32_t a, b;
};

// TF's _open_ring_2d: a snake through an a_size x b_size grid (b_size even) that starts next to (0, 0)
// and comes back along a = 0; (0, 0) itself is left out. Returns the number of pairs written.
int open_ring_2d(int32_t a_size, int32_t b_size, Pair* out) {
  int count = 0;
  for (int32_t row = 0; row < b_size / 2; ++row) {
    for (int32_t a = 1; a < a_size; ++a) out[count++] = Pair{a, 2 * row};
    for (int32_t a = a_size - 1; a > 0; --a) out[count++] = Pair{a, 2 * row + 1};
  }
  for (int32_t b = b_size - 1; b > 0; --b) out[count++] = Pair{0, b};
  return count;
}

bool odd_dimension(int32_t size) { return size > 1 && size % 2 != 0; }

// TF's _ring_3d: 2-D rings stacked along z, alternating direction, joined at the (0, 0) column.
ChipRing ring_3d(int32_t x_size, int32_t y_size, int32_t z_size) {
  ChipRing ring;
  Pair pairs[kMaxTpuDevices];
  if (x_size == 1 && y_size == 1) {
    for (int32_t z = 0; z < z_size; ++z) ring.add(0, 0, z);
  } else if (x_size == 1 && z_size == 1) {
    for (int32_t y = 0; y < y_size; ++y) ring.add(0, y, 0);
  } else if (y_size == 1 && z_size == 1) {
    for (int32_t x = 0; x < x_size; ++x) ring.add(x, 0, 0);
  } else if (odd_dimension(x_size) || odd_dimension(y_size) || odd_dimension(z_size)) {
    // TF logs "Odd dimension" and falls back to x-fastest order.
    for (int32_t z = 0; z < z_size; ++z)
      for (int32_t y = 0; y < y_size; ++y)
        for (int32_t x = 0; x < x_size; ++x) ring.add(x, y, z);
  } else if (z_size == 1) {
    ring.add(0, 0, 0);
    const int count = open_ring_2d(x_size, y_size, pairs);
    for (int i = 0; i < count; ++i) ring.add(pairs[i].a, pairs[i].b, 0);
  } else if (y_size == 1) {
    ring.add(0, 0, 0);
    const int count = open_ring_2d(x_size, z_size, pairs);
    for (int i = 0; i < count; ++i) ring.add(pairs[i].a, 0, pairs[i].b);
  } else if (x_size == 1) {
    ring.add(0, 0, 0);
    const int count = open_ring_2d(y_size, z_size, pairs);
    for (int i = 0; i < count; ++i) ring.add(0, pairs[i].a, pairs[i].b);
  } else {
    ring.add(0, 0, 0);
    const int count = open_ring_2d(x_size, y_size, pairs);
    for (int32_t z = 0; z < z_size; ++z)
      for (int i = 0; i < count; ++i) {
        const Pair& pair = pairs[z % 2 == 0 ? i : count - 1 - i];
        ring.add(pair.a, pair.b, z);
      }
    for (int32_t z = z_size - 1; z > 0; --z) ring.add(0, 0, z);
  }
  return ring;
}

// TF's 3-D tiling: replicas follow the ring over replica_shape's chips; inside a replica, its chips
// follow the ring over computation_shape's chips, all cores of a chip in a row.
void ring_layout(const Request& request, Span<const int32_t> mesh, const MeshShape& replica_shape, int num_replicas,
                 MeshCoordinates* out) {
  const ChipRing inner = ring_3d(request.shape[0], request.shape[1], request.shape[2]);
  const ChipRing outer = ring_3d(replica_shape[0], replica_shape[1], replica_shape[2]);
  const int cores_per_replica = int(product(request.shape.span()));
  for (int replica = 0; replica < num_replicas && replica < outer.size; ++replica) {
    const Chip& block = outer.chips[replica];
    for (int index = 0; index < cores_per_replica; ++index) {
      const Chip& chip = inner.chips[index / mesh[3]];
      out[replica * cores_per_replica + index] =
          MeshCoordinates{{block.x * request.shape[0] + chip.x, block.y * request.shape[1] + chip.y,
                           block.z * request.shape[2] + chip.z, index % mesh[3]}};
    }
  }
}

// ---------------------------------------------------------------- degraded slices

// TF on a topology with missing devices: ignore the geometry, hand out present devices in task order.
Status task_order_layout(const Topology& topology, const Request& request, int num_replicas, MeshCoordinates* out) {
  if (product(request.stride.span()) != 1)
    return invalid_argument(
        "computation_stride must be all ones on a topology with missing devices; got computation_stride={}",
        numpy_array_text(request.stride.span()));
  const int64_t cores_per_replica = product(request.shape.span());
  if (num_replicas * cores_per_replica > topology.num_devices())
    return invalid_argument("requested {} replicas of {} cores but the topology has only {} devices ({} missing)",
                            num_replicas, cores_per_replica, topology.num_devices(), topology.num_missing_devices());
  for (int64_t logical_id = 0; logical_id < num_replicas * cores_per_replica; ++logical_id)
    out[logical_id] = topology.device_coordinates(int(logical_id / topology.num_tpus_per_task()),
                                                  int(logical_id % topology.num_tpus_per_task()));
  return Status::ok();
}

// kAllReplicas: every replica that fits in the mesh, or, with missing devices, in the present devices.
int all_replicas_that_fit(const Topology& topology, const Request& request) {
  if (topology.num_missing_devices() == 0) return request.max_replicas;
  const int by_devices = int(topology.num_devices() / product(request.shape.span()));
  return by_devices < request.max_replicas ? by_devices : request.max_replicas;
}

// The core an explicit core_assignment entry names, with core_at_coordinates's errors (numpy's
// IndexError outside the mesh; negative coordinates, which TF would wrap, rejected) and a missing
// device named by its entry.
Result<int> core_of_entry(const Topology& topology, const MeshCoordinates& at, int replica, int logical_core) {
  Result<int> core = topology.core_at_coordinates(at.span());
  if (!core && core.status().code() == StatusCode::kNotFound)
    return invalid_argument("core_assignment[{}][{}] = {} is a missing device of the topology", replica,
                            logical_core, at.span());
  return core;
}

}  // namespace

// ---------------------------------------------------------------- construction

Result<int> DeviceAssignment::max_replicas(const Topology& topology, Span<const int32_t> computation_shape,
                                           Span<const int32_t> computation_stride) {
  Result<Request> request = check_request(topology, computation_shape, computation_stride);
  if (!request) return request.status();
  return request->max_replicas;
}

Result<DeviceAssignment> DeviceAssignment::build(const Topology& topology, Span<const int32_t> computation_shape,
                                                 Span<const int32_t> computation_stride, int num_replicas,
                                                 DeviceOrderMode device_order_mode) {
  Result<Request> checked = check_request(topology, computation_shape, computation_stride);
  if (!checked) return checked.status();
  const Request& request = *checked;
  if (num_replicas == kAllReplicas) num_replicas = all_replicas_that_fit(topology, request);
  if (num_replicas > request.max_replicas)
    return invalid_argument(
        "requested {} replicas but only {} replicas with shape {} and computation_stride {} fit in a TPU mesh of "
        "shape {}",
        num_replicas, request.max_replicas, numpy_array_text(request.shape.span()),
        numpy_array_text(request.stride.span()), numpy_array_text(topology.mesh_shape()));
  if (num_replicas < 0) return invalid_argument("negative dimensions are not allowed");  // numpy's, as TF raises it

  const int cores_per_replica = int(product(request.shape.span()));
  MeshCoordinates entries[kMaxTpuDevices];
  if (int64_t{num_replicas} * cores_per_replica > kMaxTpuDevices)  // replicas never overlap: unreachable
    return internal_error("{} replicas of {} cores do not fit the assignment table", num_replicas, cores_per_replica);
  if (topology.num_missing_devices() != 0) {
    RT_RETURN_IF_ERROR(task_order_layout(topology, request, num_replicas, entries));
    return assemble(topology, num_replicas, cores_per_replica, entries);
  }

  const MeshShape replica_shape = choose_replica_shape(request.replica_counts, num_replicas);
  const Span<const int32_t> mesh = topology.mesh_shape();
  bool three_d_tiling = request.shape[3] == mesh[3] && product(request.stride.span()) == 1 &&
                        num_replicas == request.max_replicas;
  if (device_order_mode == DeviceOrderMode::kRing && !three_d_tiling)
    return invalid_argument(
        "device_order_mode=DeviceOrderMode.RING is not compatible with the 3D tiling current topology.  Try "
        "setting device_order_mode=DeviceOrderMode.AUTO");
  if (device_order_mode == DeviceOrderMode::kMesh) three_d_tiling = false;
  if (three_d_tiling)
    ring_layout(request, mesh, replica_shape, num_replicas, entries);
  else
    block_layout(request, replica_shape, num_replicas, entries);
  return assemble(topology, num_replicas, cores_per_replica, entries);
}

Result<DeviceAssignment> DeviceAssignment::create(const Topology& topology, Span<const int32_t> core_assignment,
                                                  Span<const int32_t> core_assignment_shape) {
  const NumpyText shape_text = numpy_shape_text(core_assignment_shape);
  if (core_assignment_shape.size() != 3)
    return invalid_argument("core_assignment must be a rank 3 numpy array, got shape {}", shape_text);
  if (core_assignment_shape[2] != kMeshRank)
    return invalid_argument(
        "core_assignment.shape[-1] must have size equal to topology rank ({}), got core_assignment.shape={}",
        kMeshRank, shape_text);
  if (core_assignment_shape[0] < 0 || core_assignment_shape[1] < 0)
    return invalid_argument("negative dimensions are not allowed");
  const int64_t values = product(core_assignment_shape);
  if (int64_t(core_assignment.size()) != values)
    return invalid_argument("core_assignment has {} values but its shape {} needs {}", core_assignment.size(),
                            shape_text, values);
  const int64_t entries_needed = values / kMeshRank;
  if (entries_needed > kMaxTpuDevices)
    return invalid_argument("core_assignment has {} (replica, logical core) entries but a pod has at most {} TPU devices "
                            "(kMaxPodDevices)",
                            entries_needed, kMaxTpuDevices);
  MeshCoordinates entries[kMaxTpuDevices];
  for (int64_t entry = 0; entry < entries_needed; ++entry)
    for (int axis = 0; axis < kMeshRank; ++axis) entries[entry][axis] = core_assignment[size_t(entry) * kMeshRank + axis];
  return assemble(topology, core_assignment_shape[0], core_assignment_shape[1], entries);
}

Result<DeviceAssignment> DeviceAssignment::assemble(const Topology& topology, int replicas, int cores_per_replica,
                                                    const MeshCoordinates* entries) {
  DeviceAssignment assignment(topology);
  assignment.num_replicas_ = replicas;
  assignment.num_cores_per_replica_ = cores_per_replica;
  bool used[kMaxTpuDevices] = {};
  for (int entry = 0; entry < replicas * cores_per_replica; ++entry) {
    const MeshCoordinates& at = entries[entry];
    const int replica = entry / cores_per_replica;
    const int logical_core = entry % cores_per_replica;
    const int core = RT_TRY(core_of_entry(topology, at, replica, logical_core));
    if (used[core]) {
      const CorePlacement first = assignment.placement_of_core(core);
      return invalid_argument("core_assignment puts replica {} logical core {} and replica {} logical core {} on the same TPU core {}",
                              first.replica, first.logical_core, replica, logical_core, at.span());
    }
    used[core] = true;
    assignment.assignment_[entry] = at;
    assignment.core_ids_[entry] = int8_t(core);
  }
  return assignment;
}

// ---------------------------------------------------------------- lookups

Result<int> DeviceAssignment::entry_at(int replica, int logical_core) const {
  const int row = RT_TRY(numpy_index(replica, 0, num_replicas_));
  const int column = RT_TRY(numpy_index(logical_core, 1, num_cores_per_replica_));
  return row * num_cores_per_replica_ + column;
}

Result<MeshCoordinates> DeviceAssignment::coordinates(int replica, int logical_core) const {
  return assignment_[RT_TRY(entry_at(replica, logical_core))];
}

Result<int> DeviceAssignment::tpu_ordinal(int replica, int logical_core) const {
  const MeshCoordinates at = RT_TRY(coordinates(replica, logical_core));
  return topology_.tpu_device_ordinal_at_coordinates(at.span());
}

Result<DeviceName> DeviceAssignment::host_device(int replica, int logical_core, StringView job) const {
  const MeshCoordinates at = RT_TRY(coordinates(replica, logical_core));
  return topology_.cpu_device_name_at_coordinates(at.span(), job);
}

Result<DeviceName> DeviceAssignment::tpu_device(int replica, int logical_core, StringView job) const {
  const MeshCoordinates at = RT_TRY(coordinates(replica, logical_core));
  return topology_.tpu_device_name_at_coordinates(at.span(), job);
}

Result<ReplicaList> DeviceAssignment::lookup_replicas(int task_id, int logical_core) const {
  ReplicaList replicas;
  if (logical_core >= 0 && logical_core < num_cores_per_replica_)
    for (int replica = 0; replica < num_replicas_ && replicas.size < kMaxTpuDevices; ++replica)
      if (core_of(replica, logical_core) / topology_.num_tpus_per_task() == task_id) replicas.ids[replicas.size++] = replica;
  if (replicas.size == 0)
    return invalid_argument("Can not find any replica in task: {} contains logical_core: {} ", task_id, logical_core);
  return replicas;
}

CorePlacement DeviceAssignment::placement_of_core(int core) const {
  for (int entry = 0; entry < num_replicas_ * num_cores_per_replica_; ++entry)
    if (core_ids_[entry] == core) return CorePlacement{entry / num_cores_per_replica_, entry % num_cores_per_replica_};
  return CorePlacement{};
}

}  // namespace rt::tpu
