// Topology construction, validation (TF's texts) and coordinate lookups with numpy's indexing rules;
// numpy-style array printing.
#include "topology.hpp"

namespace rt::tpu {

// ---------------------------------------------------------------- numpy printing

namespace {

constexpr size_t kNumpyLineWidth = 75;

size_t decimal_length(int32_t value) {
  int64_t magnitude = value < 0 ? -int64_t{value} : int64_t{value};
  size_t length = value < 0 ? 2 : 1;
  while (magnitude >= 10) {
    magnitude /= 10;
    ++length;
  }
  return length;
}

}  // namespace

// numpy pads every element to the widest one, separates them by one space and starts a new line
// (indented by one space) before an element that would pass column 74; the closing ']' may use 75.
NumpyText numpy_array_text(Span<const int32_t> values) {
  NumpyText text;
  text.append('[');
  size_t width = 0;
  for (int32_t value : values) width = decimal_length(value) > width ? decimal_length(value) : width;
  size_t line_length = 1;  // '[' or the hanging indent
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t with_separator = line_length + (i == 0 ? 0 : 1);
    if (i != 0 && with_separator + width > kNumpyLineWidth - 1) {
      text.append("\n ");
      line_length = 1;
    } else {
      if (i != 0) text.append(' ');
      line_length = with_separator;
    }
    for (size_t pad = decimal_length(values[i]); pad < width; ++pad) text.append(' ');
    format_to(text, "{}", values[i]);
    line_length += width;
  }
  text.append(']');
  return text;
}

NumpyText numpy_shape_text(Span<const int32_t> shape) {
  NumpyText text;
  text.append('(');
  for (size_t i = 0; i < shape.size(); ++i) format_to(text, i == 0 ? "{}" : ", {}", shape[i]);
  if (shape.size() == 1) text.append(',');
  text.append(')');
  return text;
}

Result<int> numpy_index(int index, int axis, int size) {
  const int wrapped = index < 0 ? index + size : index;
  if (wrapped < 0 || wrapped >= size)
    return Status::error(StatusCode::kOutOfRange, "index {} is out of bounds for axis {} with size {}", index, axis,
                         size);
  return wrapped;
}

// ---------------------------------------------------------------- default board layout

namespace {

// Largest divisor d of n with d^power <= n.
int32_t largest_divisor_within_root(int32_t n, int power) {
  int32_t best = 1;
  for (int32_t d = 1; d <= n; ++d) {
    int64_t raised = 1;
    for (int p = 0; p < power; ++p) raised *= d;
    if (raised > n) break;
    if (n % d == 0) best = d;
  }
  return best;
}

}  // namespace

MeshShape Topology::default_mesh_shape(int cores) {
  const int32_t cores_per_chip = cores % 2 == 0 ? 2 : 1;
  const int32_t chips = cores / cores_per_chip;
  const int32_t x = largest_divisor_within_root(chips, 3);
  const int32_t y = largest_divisor_within_root(chips / x, 2);
  return MeshShape{{x, y, chips / x / y, cores_per_chip}};
}

Result<Topology> Topology::for_cores(int cores) {
  if (cores < 1 || cores > int(hal::kMaxCores))
    return invalid_argument("a board has 1 to {} cores; got {}", hal::kMaxCores, cores);
  const MeshShape mesh = default_mesh_shape(cores);
  int32_t coordinates[hal::kMaxCores * kMeshRank];
  for (int core = 0; core < cores; ++core) {
    int32_t* at = coordinates + core * kMeshRank;
    at[3] = core % mesh[3];
    at[0] = (core / mesh[3]) % mesh[0];
    at[1] = (core / (mesh[3] * mesh[0])) % mesh[1];
    at[2] = core / (mesh[3] * mesh[0] * mesh[1]);
  }
  return create(mesh.span(), 1, cores, Span<const int32_t>(coordinates, size_t(cores) * kMeshRank));
}

Result<Topology> Topology::for_pod(int num_tasks, int cores_per_task) {
  if (num_tasks == 1) return for_cores(cores_per_task);
  if (num_tasks < 1 || cores_per_task < 1 || int64_t{num_tasks} * cores_per_task > kMaxTpuDevices)
    return invalid_argument("a pod of {} boards of {} cores has {} TPU devices; the runtime's tables hold 1 to {} (kMaxPodDevices)",
                            num_tasks, cores_per_task, int64_t{num_tasks} * cores_per_task, kMaxTpuDevices);
  const MeshShape board = default_mesh_shape(cores_per_task);
  const MeshShape mesh{{board[0], board[1], board[2] * num_tasks, board[3]}};
  int32_t coordinates[kMaxTpuDevices * kMeshRank];
  for (int task = 0; task < num_tasks; ++task)
    for (int device = 0; device < cores_per_task; ++device) {
      int32_t* at = coordinates + (task * cores_per_task + device) * kMeshRank;
      at[3] = device % board[3];
      at[0] = (device / board[3]) % board[0];
      at[1] = (device / (board[3] * board[0])) % board[1];
      at[2] = device / (board[3] * board[0] * board[1]) + task * board[2];
    }
  return create(mesh.span(), num_tasks, cores_per_task,
                Span<const int32_t>(coordinates, size_t(num_tasks) * cores_per_task * kMeshRank));
}

// ---------------------------------------------------------------- construction

namespace {

Status check_mesh_shape(Span<const int32_t> mesh_shape) {
  bool positive = true;
  for (int32_t size : mesh_shape) positive = positive && size >= 1;
  if (mesh_shape.size() != size_t(kMeshRank) || !positive)
    return invalid_argument("`mesh_shape` must be a sequence of 4 positive entries; got {}",
                            numpy_array_text(mesh_shape));
  int64_t cells = 1;
  for (int32_t size : mesh_shape) cells *= size;
  if (cells > kMaxMeshCells)
    return invalid_argument("`mesh_shape` {} has {} cells; the runtime supports meshes of at most {}",
                            numpy_array_text(mesh_shape), cells, kMaxMeshCells);
  return Status::ok();
}

// TopologyProto's checks on the task/device counts and the coordinate array's size.
Status check_device_table(Span<const int32_t> mesh_shape, int num_tasks, int num_tpus_per_task,
                          Span<const int32_t> device_coordinates) {
  if (num_tasks < 0) return invalid_argument("`num_tasks` must be >= 0; got {}", num_tasks);
  if (num_tpus_per_task < 0)
    return invalid_argument("`num_tpu_devices_per_task` must be >= 0; got {}", num_tpus_per_task);
  const int64_t devices = int64_t{num_tasks} * num_tpus_per_task;
  // TF prints the mesh shape itself where it means its length; kept as TF shows it.
  if (int64_t(device_coordinates.size()) != devices * kMeshRank)
    return invalid_argument(
        "`device_coordinates` must have shape num_tasks ({}) * num_tpu_devices_per_task ({}) * "
        "len(mesh_shape) ({}); got shape {}",
        num_tasks, num_tpus_per_task, mesh_shape, device_coordinates.size());
  if (devices > kMaxTpuDevices)
    return invalid_argument("a Topology holds at most {} TPU devices (the runtime's kMaxPodDevices); got {}",
                            kMaxTpuDevices, devices);
  for (int32_t value : device_coordinates)
    if (value < 0)
      return invalid_argument("All values in `device_coordinates` must be >= 0, got {}",
                              numpy_array_text(device_coordinates));
  return Status::ok();
}

}  // namespace

Result<Topology> Topology::create(Span<const int32_t> mesh_shape, int num_tasks, int num_tpus_per_task,
                                  Span<const int32_t> device_coordinates) {
  RT_RETURN_IF_ERROR(check_mesh_shape(mesh_shape));
  RT_RETURN_IF_ERROR(check_device_table(mesh_shape, num_tasks, num_tpus_per_task, device_coordinates));
  Topology topology;
  for (int axis = 0; axis < kMeshRank; ++axis) topology.mesh_shape_[axis] = mesh_shape[axis];
  topology.num_tasks_ = num_tasks;
  topology.num_tpus_per_task_ = num_tpus_per_task;
  for (int device = 0; device < topology.num_devices(); ++device)
    for (int axis = 0; axis < kMeshRank; ++axis)
      topology.device_coordinates_[device][axis] = device_coordinates[size_t(device) * kMeshRank + axis];
  RT_RETURN_IF_ERROR(topology.index_devices());
  return topology;
}

Result<Topology> Topology::create(Span<const int32_t> mesh_shape, Span<const int32_t> device_coordinates) {
  return create(mesh_shape, 1, int(device_coordinates.size() / kMeshRank), device_coordinates);
}

// ---------------------------------------------------------------- TopologyProto

namespace {

// TF's _parse_topology checks, in its order and with its texts (they differ from the constructor's).
Status check_parsed_topology(const TopologyProtoFields& proto) {
  const Span<const int32_t> mesh(proto.mesh_shape, proto.mesh_shape_size < kMaxProtoMeshShape ? proto.mesh_shape_size
                                                                                               : kMaxProtoMeshShape);
  bool positive = true;
  for (int32_t size : mesh) positive = positive && size >= 1;
  if (proto.mesh_shape_size != size_t(kMeshRank) || !positive)
    return invalid_argument("`mesh_shape` must be a vector of size 4 with positive entries; got {}",
                            numpy_array_text(mesh));
  if (proto.num_tasks < 0) return invalid_argument("`num_tasks` must be >= 0; got {}", proto.num_tasks);
  if (proto.num_tpu_devices_per_task < 0)
    return invalid_argument("`num_tpu_devices_per_task` must be >= 0; got {}", proto.num_tpu_devices_per_task);
  const int64_t expected = int64_t{proto.num_tasks} * proto.num_tpu_devices_per_task * kMeshRank;
  if (int64_t(proto.device_coordinates_size) != expected)  // TF prints the mesh shape (a list) for its length
    return invalid_argument("`device_coordinates` must have shape num_tasks ({}) * num_tpu_devices_per_task ({}) * "
                            "len(mesh_shape) ({}); got shape {}",
                            proto.num_tasks, proto.num_tpu_devices_per_task, mesh, proto.device_coordinates_size);
  if (proto.device_coordinates_size > kMaxProtoCoordinates)
    return invalid_argument("a Topology holds at most {} TPU devices (the runtime's kMaxPodDevices); got {}",
                            kMaxTpuDevices, expected / kMeshRank);
  for (size_t i = 0; i < proto.device_coordinates_size; ++i)
    if (proto.device_coordinates[i] < 0) return invalid_argument("`device_coordinates` must be >= 0");
  return Status::ok();
}

}  // namespace

Result<Topology> Topology::from_serialized(Span<const uint8_t> serialized) {
  const TopologyProtoFields proto = RT_TRY(parse_topology_proto(serialized));
  RT_RETURN_IF_ERROR(check_parsed_topology(proto));
  return create(Span<const int32_t>(proto.mesh_shape, kMeshRank), proto.num_tasks, proto.num_tpu_devices_per_task,
                Span<const int32_t>(proto.device_coordinates, proto.device_coordinates_size));
}

TopologyProtoBytes Topology::serialized() const {
  int32_t coordinates[kMaxTpuDevices * kMeshRank];
  for (int device = 0; device < num_devices(); ++device)
    for (int axis = 0; axis < kMeshRank; ++axis) coordinates[device * kMeshRank + axis] = device_coordinates_[device][axis];
  return serialize_topology_proto(mesh_shape(), num_tasks_, num_tpus_per_task_,
                                  Span<const int32_t>(coordinates, size_t(num_devices()) * kMeshRank));
}

// TF's _invert_topology: mesh cell -> (task, device). Coordinates outside the mesh fail with numpy's
// IndexError text (what TF raises there; negative ones were rejected before); a cell claimed twice is
// rejected (TF keeps the last).
Status Topology::index_devices() {
  for (int cell = 0; cell < kMaxMeshCells; ++cell) task_at_cell_[cell] = device_at_cell_[cell] = -1;
  for (int task = 0; task < num_tasks_; ++task) {
    for (int device = 0; device < num_tpus_per_task_; ++device) {
      const MeshCoordinates& at = device_coordinates(task, device);
      const int cell = RT_TRY(cell_at(at.span()));
      if (task_at_cell_[cell] >= 0)
        return invalid_argument(
            "`device_coordinates` puts task {} device {} and task {} device {} at the same coordinates {}",
            int(task_at_cell_[cell]), int(device_at_cell_[cell]), task, device, at.span());
      task_at_cell_[cell] = int8_t(task);
      device_at_cell_[cell] = int8_t(device);
    }
  }
  return Status::ok();
}

// ---------------------------------------------------------------- lookups

int Topology::mesh_size() const { return mesh_shape_[0] * mesh_shape_[1] * mesh_shape_[2] * mesh_shape_[3]; }

// numpy's _topology_tasks[tuple(coordinates)]: 4 indices (numpy would take fewer as a slice; the
// runtime asks for all 4), each wrapped or rejected by numpy_index, axis by axis; negative ones are
// the runtime's error instead when `wrap_negative` is false (core_at_coordinates).
Result<int> Topology::cell_at(Span<const int32_t> coordinates, bool wrap_negative) const {
  if (coordinates.size() > size_t(kMeshRank))
    return Status::error(StatusCode::kOutOfRange,
                         "too many indices for array: array is 4-dimensional, but {} were indexed",
                         coordinates.size());
  if (coordinates.size() < size_t(kMeshRank))
    return invalid_argument("device coordinates must have 4 entries (x, y, z, core); got {}", coordinates);
  int cell = 0;
  for (int axis = 0; axis < kMeshRank; ++axis) {
    if (!wrap_negative && coordinates[axis] < 0)
      return invalid_argument("device coordinates must be >= 0; got {}", coordinates);
    cell = cell * mesh_shape_[axis] + RT_TRY(numpy_index(coordinates[axis], axis, mesh_shape_[axis]));
  }
  return cell;
}

Result<MeshCoordinates> Topology::device_coordinates_at(int task, int device) const {
  const int row = RT_TRY(numpy_index(task, 0, num_tasks_));
  const int column = RT_TRY(numpy_index(device, 1, num_tpus_per_task_));
  return device_coordinates(row, column);
}

int Topology::num_missing_devices() const { return mesh_size() - num_devices(); }

MeshCoordinates Topology::missing_device(int index) const {
  MeshCoordinates coordinates{};
  for (int cell = 0, seen = 0; cell < mesh_size(); ++cell) {
    if (task_at_cell_[cell] >= 0 || seen++ != index) continue;
    for (int axis = kMeshRank - 1, rest = cell; axis >= 0; --axis) {
      coordinates[axis] = rest % mesh_shape_[axis];
      rest /= mesh_shape_[axis];
    }
    break;
  }
  return coordinates;
}

Result<int> Topology::task_ordinal_at_coordinates(Span<const int32_t> coordinates) const {
  return int(task_at_cell_[RT_TRY(cell_at(coordinates))]);
}

Result<int> Topology::tpu_device_ordinal_at_coordinates(Span<const int32_t> coordinates) const {
  return int(device_at_cell_[RT_TRY(cell_at(coordinates))]);
}

namespace {

void append_job(DeviceName& name, StringView job) {
  if (!job.empty()) format_to(name, "/job:{}", job);
}

}  // namespace

Result<DeviceName> Topology::cpu_device_name_at_coordinates(Span<const int32_t> coordinates, StringView job) const {
  const int cell = RT_TRY(cell_at(coordinates));
  DeviceName name;
  append_job(name, job);
  format_to(name, "/task:{}/device:CPU:0", int(task_at_cell_[cell]));
  return name;
}

Result<DeviceName> Topology::tpu_device_name_at_coordinates(Span<const int32_t> coordinates, StringView job) const {
  const int cell = RT_TRY(cell_at(coordinates));
  DeviceName name;
  append_job(name, job);
  format_to(name, "/task:{}/device:TPU:{}", int(task_at_cell_[cell]), int(device_at_cell_[cell]));
  return name;
}

Result<int> Topology::core_at_coordinates(Span<const int32_t> coordinates) const {
  const int cell = RT_TRY(cell_at(coordinates, false));
  if (task_at_cell_[cell] < 0)
    return Status::error(StatusCode::kNotFound, "no TPU core at coordinates {}: the device is missing from the topology",
                         coordinates);
  return task_at_cell_[cell] * num_tpus_per_task_ + device_at_cell_[cell];
}

}  // namespace rt::tpu
