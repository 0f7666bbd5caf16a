// Topology (runtime/tpu/mesh/topology.cpp): the default board meshes, TF's Topology construction and
// lookups, TF's error texts, and numpy's array printing used in them. Expected values are written
// out literally; the numpy texts are what numpy 1.24 prints for the same arrays, and the topology
// round trip mirrors TF's topology_test.py (testSerialization: mesh [1,1,1,2], two devices).
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <string>
#include <vector>

#include "runtime/tpu/mesh/topology.hpp"

namespace {

using test_helpers::message;

using rt::tpu::Topology;


std::vector<int32_t> as_vector(rt::Span<const int32_t> values) { return std::vector<int32_t>(values.begin(), values.end()); }

std::vector<int32_t> coordinates_of(const Topology& topology, int task, int device) {
  return as_vector(topology.device_coordinates(task, device).span());
}

std::string text(const rt::FormatBuffer& buffer) { return std::string(buffer.c_str()); }

template <class T>
std::string error_of(const rt::Result<T>& result) {
  REQUIRE_FALSE(result.is_ok());
  return message(result.status());
}

Topology make(std::vector<int32_t> mesh, std::vector<int32_t> coordinates) {
  rt::Result<Topology> topology = Topology::create(rt::Span<const int32_t>(mesh.data(), mesh.size()),
                                                   rt::Span<const int32_t>(coordinates.data(), coordinates.size()));
  if (!topology.is_ok()) FAIL(message(topology.status()));
  return *topology;
}

std::string create_error(std::vector<int32_t> mesh, std::vector<int32_t> coordinates) {
  return error_of(Topology::create(rt::Span<const int32_t>(mesh.data(), mesh.size()),
                                   rt::Span<const int32_t>(coordinates.data(), coordinates.size())));
}

}  // namespace

TEST_CASE("default board meshes for 1 to 16 cores", "[topology]") {
  const std::vector<std::vector<int32_t>> expected = {
      {1, 1, 1, 1}, {1, 1, 1, 2}, {1, 1, 3, 1},  {1, 1, 2, 2}, {1, 1, 5, 1},  {1, 1, 3, 2}, {1, 1, 7, 1},  {1, 2, 2, 2},
      {1, 3, 3, 1}, {1, 1, 5, 2}, {1, 1, 11, 1}, {1, 2, 3, 2}, {1, 1, 13, 1}, {1, 1, 7, 2}, {1, 3, 5, 1}, {2, 2, 2, 2},
  };
  for (int cores = 1; cores <= 16; ++cores) {
    INFO("cores " << cores);
    CHECK(as_vector(Topology::default_mesh_shape(cores).span()) == expected[cores - 1]);
    rt::Result<Topology> topology = Topology::for_cores(cores);
    REQUIRE(topology.is_ok());
    CHECK(as_vector(topology->mesh_shape()) == expected[cores - 1]);
    CHECK(topology->num_tasks() == 1);
    CHECK(topology->num_tpus_per_task() == cores);
    CHECK(topology->num_missing_devices() == 0);
  }
  CHECK(error_of(Topology::for_cores(0)) == "a board has 1 to 16 cores; got 0");
  CHECK(error_of(Topology::for_cores(17)) == "a board has 1 to 16 cores; got 17");
}

TEST_CASE("cores are numbered core-within-chip fastest, then x, y, z", "[topology]") {
  const Topology eight = *Topology::for_cores(8);  // [1,2,2,2]
  const std::vector<std::vector<int32_t>> eight_expected = {
      {0, 0, 0, 0}, {0, 0, 0, 1}, {0, 1, 0, 0}, {0, 1, 0, 1}, {0, 0, 1, 0}, {0, 0, 1, 1}, {0, 1, 1, 0}, {0, 1, 1, 1},
  };
  for (int core = 0; core < 8; ++core) CHECK(coordinates_of(eight, 0, core) == eight_expected[core]);

  const Topology sixteen = *Topology::for_cores(16);  // [2,2,2,2]
  const std::vector<std::vector<int32_t>> sixteen_expected = {
      {0, 0, 0, 0}, {0, 0, 0, 1}, {1, 0, 0, 0}, {1, 0, 0, 1}, {0, 1, 0, 0}, {0, 1, 0, 1}, {1, 1, 0, 0}, {1, 1, 0, 1},
      {0, 0, 1, 0}, {0, 0, 1, 1}, {1, 0, 1, 0}, {1, 0, 1, 1}, {0, 1, 1, 0}, {0, 1, 1, 1}, {1, 1, 1, 0}, {1, 1, 1, 1},
  };
  for (int core = 0; core < 16; ++core) {
    CHECK(coordinates_of(sixteen, 0, core) == sixteen_expected[core]);
    CHECK(as_vector(sixteen.coordinates_of_core(core).span()) == sixteen_expected[core]);
    const std::vector<int32_t>& at = sixteen_expected[core];
    CHECK(sixteen.core_at_coordinates(rt::Span<const int32_t>(at.data(), 4)).value() == core);
    CHECK(sixteen.tpu_device_ordinal_at_coordinates(rt::Span<const int32_t>(at.data(), 4)).value() == core);
    CHECK(sixteen.task_ordinal_at_coordinates(rt::Span<const int32_t>(at.data(), 4)).value() == 0);
  }

  const Topology three = *Topology::for_cores(3);  // [1,1,3,1]
  CHECK(coordinates_of(three, 0, 2) == std::vector<int32_t>{0, 0, 2, 0});
}

TEST_CASE("explicit topology as in TF's topology_test", "[topology]") {
  const Topology topology = make({1, 1, 1, 2}, {0, 0, 0, 0, 0, 0, 0, 1});
  CHECK(as_vector(topology.mesh_shape()) == std::vector<int32_t>{1, 1, 1, 2});
  CHECK(topology.mesh_rank() == 4);
  CHECK(topology.num_tasks() == 1);
  CHECK(topology.num_tpus_per_task() == 2);
  CHECK(coordinates_of(topology, 0, 0) == std::vector<int32_t>{0, 0, 0, 0});
  CHECK(coordinates_of(topology, 0, 1) == std::vector<int32_t>{0, 0, 0, 1});
  CHECK(topology.num_missing_devices() == 0);
}

TEST_CASE("device names and multi-task topologies", "[topology]") {
  const Topology eight = *Topology::for_cores(8);
  const int32_t at[] = {0, 1, 1, 0};
  CHECK(text(eight.tpu_device_name_at_coordinates(at).value()) == "/task:0/device:TPU:6");
  CHECK(text(eight.tpu_device_name_at_coordinates(at, "worker").value()) == "/job:worker/task:0/device:TPU:6");
  CHECK(text(eight.cpu_device_name_at_coordinates(at).value()) == "/task:0/device:CPU:0");
  CHECK(text(eight.cpu_device_name_at_coordinates(at, "tpu_worker").value()) == "/job:tpu_worker/task:0/device:CPU:0");

  // Two tasks with two devices each on a [1,1,2,2] mesh: task 1 owns the z = 1 chip.
  const int32_t mesh[] = {1, 1, 2, 2};
  const int32_t coordinates[] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 1};
  rt::Result<Topology> two_tasks = Topology::create(mesh, 2, 2, coordinates);
  REQUIRE(two_tasks.is_ok());
  const int32_t last[] = {0, 0, 1, 1};
  CHECK(two_tasks->num_tasks() == 2);
  CHECK(two_tasks->num_devices() == 4);
  CHECK(two_tasks->task_ordinal_at_coordinates(last).value() == 1);
  CHECK(two_tasks->tpu_device_ordinal_at_coordinates(last).value() == 1);
  CHECK(two_tasks->core_at_coordinates(last).value() == 3);
  CHECK(text(two_tasks->tpu_device_name_at_coordinates(last).value()) == "/task:1/device:TPU:1");
  CHECK(text(two_tasks->cpu_device_name_at_coordinates(last).value()) == "/task:1/device:CPU:0");
  CHECK(coordinates_of(*two_tasks, 1, 0) == std::vector<int32_t>{0, 0, 1, 0});
}

TEST_CASE("a pod's topology stacks the boards' meshes along z", "[topology][pod]") {
  // Two boards of 8 cores: each board's mesh is [1,2,2,2], the pod's [1,2,4,2]; task 1's devices are
  // task 0's with z + 2 (hand-written from the rule in topology.hpp).
  const Topology pod = *Topology::for_pod(2, 8);
  CHECK(as_vector(pod.mesh_shape()) == std::vector<int32_t>{1, 2, 4, 2});
  CHECK(pod.num_tasks() == 2);
  CHECK(pod.num_tpus_per_task() == 8);
  CHECK(coordinates_of(pod, 0, 0) == std::vector<int32_t>{0, 0, 0, 0});
  CHECK(coordinates_of(pod, 0, 7) == std::vector<int32_t>{0, 1, 1, 1});
  CHECK(coordinates_of(pod, 1, 0) == std::vector<int32_t>{0, 0, 2, 0});
  CHECK(coordinates_of(pod, 1, 5) == std::vector<int32_t>{0, 0, 3, 1});
  CHECK(coordinates_of(pod, 1, 7) == std::vector<int32_t>{0, 1, 3, 1});
  const int32_t at[] = {0, 1, 2, 1};
  CHECK(pod.task_ordinal_at_coordinates(at).value() == 1);
  CHECK(pod.tpu_device_ordinal_at_coordinates(at).value() == 3);
  CHECK(pod.core_at_coordinates(at).value() == 11);
  CHECK(text(pod.cpu_device_name_at_coordinates(at, "worker").value()) == "/job:worker/task:1/device:CPU:0");
  // Four boards of one core: [1,1,1,1] each, [1,1,4,1] in all; two of two: [1,1,2,2] -> [1,1,4,2].
  CHECK(as_vector(Topology::for_pod(4, 1)->mesh_shape()) == std::vector<int32_t>{1, 1, 4, 1});
  CHECK(coordinates_of(*Topology::for_pod(4, 1), 3, 0) == std::vector<int32_t>{0, 0, 3, 0});
  CHECK(as_vector(Topology::for_pod(2, 2)->mesh_shape()) == std::vector<int32_t>{1, 1, 2, 2});
  CHECK(coordinates_of(*Topology::for_pod(2, 2), 1, 1) == std::vector<int32_t>{0, 0, 1, 1});
  // One task is the board's own topology; too many devices for the tables is an error.
  CHECK(as_vector(Topology::for_pod(1, 8)->mesh_shape()) == std::vector<int32_t>{1, 2, 2, 2});
  // Above one board's 16 cores: 4 boards of 8 ([1,2,2,2] each) and 4 of 16 ([2,2,2,2] each).
  CHECK(as_vector(Topology::for_pod(4, 8)->mesh_shape()) == std::vector<int32_t>{1, 2, 8, 2});
  CHECK(coordinates_of(*Topology::for_pod(4, 8), 3, 7) == std::vector<int32_t>{0, 1, 7, 1});
  CHECK(as_vector(Topology::for_pod(4, 16)->mesh_shape()) == std::vector<int32_t>{2, 2, 8, 2});
  CHECK(Topology::for_pod(4, 16)->num_devices() == 64);
  CHECK(error_of(Topology::for_pod(5, 16)) ==
        "a pod of 5 boards of 16 cores has 80 TPU devices; the runtime's tables hold 1 to 64 (kMaxPodDevices)");
  CHECK(error_of(Topology::for_pod(0, 8)) ==
        "a pod of 0 boards of 8 cores has 0 TPU devices; the runtime's tables hold 1 to 64 (kMaxPodDevices)");
}

TEST_CASE("missing devices", "[topology]") {
  // Three cores on a [1,1,2,2] mesh: the second core of the z = 1 chip is missing.
  const Topology topology = make({1, 1, 2, 2}, {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0});
  CHECK(topology.num_devices() == 3);
  CHECK(topology.mesh_size() == 4);
  REQUIRE(topology.num_missing_devices() == 1);
  CHECK(as_vector(topology.missing_device(0).span()) == std::vector<int32_t>{0, 0, 1, 1});
  const int32_t missing[] = {0, 0, 1, 1};
  CHECK(topology.task_ordinal_at_coordinates(missing).value() == -1);  // as TF
  CHECK(topology.tpu_device_ordinal_at_coordinates(missing).value() == -1);
  CHECK(error_of(topology.core_at_coordinates(missing)) ==
        "no TPU core at coordinates [0, 0, 1, 1]: the device is missing from the topology");

  const Topology sparse = make({1, 1, 2, 2}, {0, 0, 1, 0});
  REQUIRE(sparse.num_missing_devices() == 3);
  CHECK(as_vector(sparse.missing_device(0).span()) == std::vector<int32_t>{0, 0, 0, 0});
  CHECK(as_vector(sparse.missing_device(1).span()) == std::vector<int32_t>{0, 0, 0, 1});
  CHECK(as_vector(sparse.missing_device(2).span()) == std::vector<int32_t>{0, 0, 1, 1});
}

TEST_CASE("lookups index like numpy: negative indices count from the end", "[topology]") {
  // [1,2,2,2]: device d at (0, (d/2)%2, d/4, d%2), so device 7 at (0,1,1,1), device 2 at (0,1,0,0).
  const Topology eight = *Topology::for_cores(8);
  // TF's topology.device_coordinates[task, device] (numpy array indexing).
  CHECK(as_vector(eight.device_coordinates_at(0, 3)->span()) == std::vector<int32_t>{0, 1, 0, 1});
  CHECK(as_vector(eight.device_coordinates_at(0, -1)->span()) == std::vector<int32_t>{0, 1, 1, 1});
  CHECK(as_vector(eight.device_coordinates_at(-1, -8)->span()) == std::vector<int32_t>{0, 0, 0, 0});
  CHECK(error_of(eight.device_coordinates_at(0, -9)) == "index -9 is out of bounds for axis 1 with size 8");
  CHECK(error_of(eight.device_coordinates_at(0, 8)) == "index 8 is out of bounds for axis 1 with size 8");
  CHECK(error_of(eight.device_coordinates_at(-2, 0)) == "index -2 is out of bounds for axis 0 with size 1");
  CHECK(error_of(eight.device_coordinates_at(1, -9)) == "index 1 is out of bounds for axis 0 with size 1");
  CHECK(eight.device_coordinates_at(0, -9).status().code() == rt::StatusCode::kOutOfRange);

  // TF's _topology_tasks / _topology_devices[tuple(coordinates)]: each axis wraps on its own.
  const int32_t all_last[] = {-1, -1, -1, -1};   // (0, 1, 1, 1)
  const int32_t all_first[] = {-1, -2, -2, -2};  // (0, 0, 0, 0)
  const int32_t mixed[] = {0, -1, 0, -2};        // (0, 1, 0, 0)
  CHECK(eight.tpu_device_ordinal_at_coordinates(all_last).value() == 7);
  CHECK(eight.task_ordinal_at_coordinates(all_last).value() == 0);
  CHECK(text(eight.tpu_device_name_at_coordinates(all_last).value()) == "/task:0/device:TPU:7");
  CHECK(eight.tpu_device_ordinal_at_coordinates(all_first).value() == 0);
  CHECK(eight.tpu_device_ordinal_at_coordinates(mixed).value() == 2);
  const int32_t below_y[] = {0, -3, 0, 0};
  const int32_t below_x[] = {-2, 0, 0, 0};
  const int32_t below_z_and_core[] = {0, 0, -3, -3};
  CHECK(error_of(eight.tpu_device_ordinal_at_coordinates(below_y)) == "index -3 is out of bounds for axis 1 with size 2");
  CHECK(error_of(eight.task_ordinal_at_coordinates(below_x)) == "index -2 is out of bounds for axis 0 with size 1");
  CHECK(error_of(eight.cpu_device_name_at_coordinates(below_z_and_core)) ==
        "index -3 is out of bounds for axis 2 with size 2");
  CHECK(eight.tpu_device_name_at_coordinates(below_y).status().code() == rt::StatusCode::kOutOfRange);
  // The runtime's core_at_coordinates takes no negatives.
  CHECK(error_of(eight.core_at_coordinates(all_last)) == "device coordinates must be >= 0; got [-1, -1, -1, -1]");

  // Two tasks on [1,1,2,2] (task 1 owns the z = 1 chip): the last task is task -1.
  const int32_t mesh[] = {1, 1, 2, 2};
  const int32_t coordinates[] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 1};
  const Topology two_tasks = *Topology::create(mesh, 2, 2, coordinates);
  CHECK(as_vector(two_tasks.device_coordinates_at(-1, -2)->span()) == std::vector<int32_t>{0, 0, 1, 0});
  CHECK(as_vector(two_tasks.device_coordinates_at(-2, -1)->span()) == std::vector<int32_t>{0, 0, 0, 1});
  CHECK(error_of(two_tasks.device_coordinates_at(-3, 0)) == "index -3 is out of bounds for axis 0 with size 2");
  const int32_t task_1_device_0[] = {0, 0, -1, -2};  // (0, 0, 1, 0)
  CHECK(two_tasks.task_ordinal_at_coordinates(task_1_device_0).value() == 1);
  CHECK(two_tasks.tpu_device_ordinal_at_coordinates(task_1_device_0).value() == 0);
  CHECK(text(two_tasks.cpu_device_name_at_coordinates(task_1_device_0, "worker").value()) ==
        "/job:worker/task:1/device:CPU:0");
  CHECK(text(two_tasks.tpu_device_name_at_coordinates(task_1_device_0).value()) == "/task:1/device:TPU:0");

  // A missing device reached through negative coordinates is -1, as in TF.
  const Topology three = make({1, 1, 2, 2}, {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0});  // (0, 0, 1, 1) missing
  const int32_t missing[] = {0, 0, -1, -1};
  CHECK(three.task_ordinal_at_coordinates(missing).value() == -1);
  CHECK(three.tpu_device_ordinal_at_coordinates(missing).value() == -1);
}

TEST_CASE("topology errors carry TF's texts", "[topology]") {
  CHECK(create_error({1, 2, 2}, {}) == "`mesh_shape` must be a sequence of 4 positive entries; got [1 2 2]");
  CHECK(create_error({1, 0, 2, 2}, {}) == "`mesh_shape` must be a sequence of 4 positive entries; got [1 0 2 2]");
  CHECK(create_error({1, -1, 12, 2}, {}) == "`mesh_shape` must be a sequence of 4 positive entries; got [ 1 -1 12  2]");
  CHECK(create_error({1, 1, 1, 2, 1}, {}) ==
        "`mesh_shape` must be a sequence of 4 positive entries; got [1 1 1 2 1]");

  const int32_t mesh[] = {1, 1, 1, 2};
  const int32_t two_devices[] = {0, 0, 0, 0, 0, 0, 0, 1};
  CHECK(error_of(Topology::create(mesh, -1, 2, two_devices)) == "`num_tasks` must be >= 0; got -1");
  CHECK(error_of(Topology::create(mesh, 1, -2, two_devices)) == "`num_tpu_devices_per_task` must be >= 0; got -2");
  // TF prints the mesh shape where it means len(mesh_shape); reproduced as TF shows it.
  CHECK(error_of(Topology::create(mesh, 1, 3, two_devices)) ==
        "`device_coordinates` must have shape num_tasks (1) * num_tpu_devices_per_task (3) * len(mesh_shape) "
        "([1, 1, 1, 2]); got shape 8");
  CHECK(create_error({1, 1, 1, 2}, {0, 0, 0, 0, 0, 0, 0}) ==
        "`device_coordinates` must have shape num_tasks (1) * num_tpu_devices_per_task (1) * len(mesh_shape) "
        "([1, 1, 1, 2]); got shape 7");
  CHECK(create_error({1, 1, 1, 2}, {0, 0, 0, -1, 0, 0, 0, 1}) ==
        "All values in `device_coordinates` must be >= 0, got [ 0  0  0 -1  0  0  0  1]");
  // numpy's IndexError, which TF raises while inverting the topology.
  CHECK(create_error({1, 2, 2, 2}, {0, 2, 0, 0}) == "index 2 is out of bounds for axis 1 with size 2");
  CHECK(create_error({1, 2, 2, 2}, {0, 0, 0, 2}) == "index 2 is out of bounds for axis 3 with size 2");
  // Runtime checks beyond TF.
  CHECK(create_error({1, 1, 1, 2}, {0, 0, 0, 1, 0, 0, 0, 1}) ==
        "`device_coordinates` puts task 0 device 0 and task 0 device 1 at the same coordinates [0, 0, 0, 1]");
  CHECK(create_error({4, 4, 4, 2}, {}) ==
        "`mesh_shape` [4 4 4 2] has 128 cells; the runtime supports meshes of at most 64");
  std::vector<int32_t> sixty_five(65 * 4, 0);
  CHECK(create_error({1, 1, 65, 1}, sixty_five) ==
        "`mesh_shape` [ 1  1 65  1] has 65 cells; the runtime supports meshes of at most 64");
  const int32_t one_cell[] = {1, 1, 1, 1};
  CHECK(error_of(Topology::create(one_cell, 65, 1, rt::Span<const int32_t>(sixty_five.data(), sixty_five.size()))) ==
        "a Topology holds at most 64 TPU devices (the runtime's kMaxPodDevices); got 65");

  const Topology eight = *Topology::for_cores(8);
  const int32_t five[] = {0, 0, 0, 0, 0};
  const int32_t three[] = {0, 0, 0};
  const int32_t outside[] = {1, 0, 0, 0};
  const int32_t negative[] = {0, -1, 0, 0};
  CHECK(error_of(eight.task_ordinal_at_coordinates(five)) ==
        "too many indices for array: array is 4-dimensional, but 5 were indexed");
  CHECK(error_of(eight.tpu_device_ordinal_at_coordinates(three)) ==
        "device coordinates must have 4 entries (x, y, z, core); got [0, 0, 0]");
  CHECK(error_of(eight.tpu_device_name_at_coordinates(outside)) == "index 1 is out of bounds for axis 0 with size 1");
  CHECK(error_of(eight.core_at_coordinates(negative)) == "device coordinates must be >= 0; got [0, -1, 0, 0]");
  CHECK(eight.core_at_coordinates(outside).status().code() == rt::StatusCode::kOutOfRange);
}

TEST_CASE("numpy array and shape printing", "[topology]") {
  const int32_t plain[] = {1, 2, 2, 2};
  const int32_t padded[] = {1, -1, 1, 1};
  const int32_t wide[] = {10, 1};
  CHECK(text(rt::tpu::numpy_array_text(plain)) == "[1 2 2 2]");
  CHECK(text(rt::tpu::numpy_array_text(padded)) == "[ 1 -1  1  1]");
  CHECK(text(rt::tpu::numpy_array_text(wide)) == "[10  1]");
  CHECK(text(rt::tpu::numpy_array_text({})) == "[]");
  // Line wrapping at 75 columns, as numpy prints np.zeros(40) and np.arange(64) - 3.
  std::vector<int32_t> zeros(40, 0);
  CHECK(text(rt::tpu::numpy_array_text(rt::Span<const int32_t>(zeros.data(), zeros.size()))) ==
        "[0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n 0 0 0]");
  std::vector<int32_t> counting;
  for (int32_t value = -3; value < 61; ++value) counting.push_back(value);
  CHECK(text(rt::tpu::numpy_array_text(rt::Span<const int32_t>(counting.data(), counting.size()))) ==
        "[-3 -2 -1  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20\n"
        " 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44\n"
        " 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60]");

  const int32_t one[] = {3};
  const int32_t two[] = {2, 4};
  CHECK(text(rt::tpu::numpy_shape_text(one)) == "(3,)");
  CHECK(text(rt::tpu::numpy_shape_text(two)) == "(2, 4)");
  CHECK(text(rt::tpu::numpy_shape_text({})) == "()");
}
