// DeviceAssignment (runtime/tpu/mesh/device_assignment.cpp): TF's device_assignment() layouts on the
// default 1/2/4/8/16-core meshes and a few explicit ones, computation shapes and strides, fewer
// replicas than fit, the ring ordering, degraded slices, explicit core assignments, lookups and every
// error text. The expected arrays are written out literally: they were worked out by hand from TF's
// algorithm (tensorflow/python/tpu/device_assignment.py) and cross-checked against a line-by-line
// Python transcription of it. TF has no unit test of its own for these layouts; the cases that mirror
// TF's documentation are marked (the replica_shape comment "prefer (2,1,1,2) over (1,1,2,2)", the
// _open_ring_2d / _ring_3d docstring pictures, SINGLE_CORE_ASSIGNMENT) and the example of
// runtime/tpu/TF_BEHAVIOUR.md section 5 ([2,2,1,2], 8 replicas: replica r at ((r/2)%2, (r/4)%2, 0, r%2)).
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <string>
#include <vector>

#include "runtime/tpu/mesh/device_assignment.hpp"

namespace {

using test_helpers::message;

using rt::tpu::DeviceAssignment;
using rt::tpu::DeviceOrderMode;
using rt::tpu::Topology;
using Layout = std::vector<std::vector<std::vector<int32_t>>>;  // [replica][logical core][4]
using Ints = std::vector<int32_t>;


template <class T>
std::string error_of(const rt::Result<T>& result) {
  REQUIRE_FALSE(result.is_ok());
  return message(result.status());
}

rt::Span<const int32_t> span(const Ints& values) { return rt::Span<const int32_t>(values.data(), values.size()); }

Topology topology_for(int cores) { return *Topology::for_cores(cores); }

Topology topology_of(const Ints& mesh, const Ints& coordinates) {
  rt::Result<Topology> topology = Topology::create(span(mesh), span(coordinates));
  if (!topology.is_ok()) FAIL(message(topology.status()));
  return *topology;
}

DeviceAssignment build(const Topology& topology, const Ints& shape, const Ints& stride, int replicas,
                       DeviceOrderMode mode = DeviceOrderMode::kAuto) {
  rt::Result<DeviceAssignment> assignment = DeviceAssignment::build(topology, span(shape), span(stride), replicas, mode);
  if (!assignment.is_ok()) FAIL(message(assignment.status()));
  return *assignment;
}

std::string build_error(const Topology& topology, const Ints& shape, const Ints& stride, int replicas,
                        DeviceOrderMode mode = DeviceOrderMode::kAuto) {
  return error_of(DeviceAssignment::build(topology, span(shape), span(stride), replicas, mode));
}

Layout layout_of(const DeviceAssignment& assignment) {
  Layout layout(assignment.num_replicas());
  for (int replica = 0; replica < assignment.num_replicas(); ++replica)
    for (int core = 0; core < assignment.num_cores_per_replica(); ++core) {
      const rt::tpu::MeshCoordinates& at = assignment.core_assignment(replica, core);
      layout[replica].push_back(Ints(at.begin(), at.end()));
    }
  return layout;
}

std::vector<Ints> cores_of(const DeviceAssignment& assignment) {
  std::vector<Ints> cores(assignment.num_replicas());
  for (int replica = 0; replica < assignment.num_replicas(); ++replica)
    for (int core = 0; core < assignment.num_cores_per_replica(); ++core)
      cores[replica].push_back(assignment.core_of(replica, core));
  return cores;
}

std::string text(const rt::FormatBuffer& buffer) { return std::string(buffer.c_str()); }

}  // namespace

TEST_CASE("one core per replica on the default meshes", "[device_assignment]") {
  SECTION("1 core: TF's SINGLE_CORE_ASSIGNMENT") {
    const DeviceAssignment assignment = build(topology_for(1), {}, {}, 1);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}}});
    CHECK(DeviceAssignment::max_replicas(topology_for(1)).value() == 1);
  }
  SECTION("2 cores [1,1,1,2]") {
    const DeviceAssignment assignment = build(topology_for(2), {}, {}, 2);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}}, {{0, 0, 0, 1}}});
  }
  SECTION("4 cores [1,1,2,2]") {
    const DeviceAssignment assignment = build(topology_for(4), {}, {}, 4);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}}, {{0, 0, 0, 1}}, {{0, 0, 1, 0}}, {{0, 0, 1, 1}}});
    CHECK(cores_of(assignment) == std::vector<Ints>{{0}, {1}, {2}, {3}});
  }
  SECTION("8 cores [1,2,2,2]: replica r on core r") {
    const DeviceAssignment assignment = build(topology_for(8), {}, {}, DeviceAssignment::kAllReplicas);
    CHECK(assignment.num_replicas() == 8);
    CHECK(assignment.num_cores_per_replica() == 1);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}}, {{0, 0, 0, 1}}, {{0, 1, 0, 0}}, {{0, 1, 0, 1}},
                                          {{0, 0, 1, 0}}, {{0, 0, 1, 1}}, {{0, 1, 1, 0}}, {{0, 1, 1, 1}}});
    CHECK(cores_of(assignment) == std::vector<Ints>{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}});
  }
  SECTION("16 cores [2,2,2,2]: replica r on core r") {
    const DeviceAssignment assignment = build(topology_for(16), {1, 1, 1, 1}, {1, 1, 1, 1}, 16);
    CHECK(cores_of(assignment) ==
          std::vector<Ints>{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}});
    CHECK(layout_of(assignment)[5] == std::vector<Ints>{{0, 1, 0, 1}});
    CHECK(layout_of(assignment)[12] == std::vector<Ints>{{0, 1, 1, 0}});
  }
  SECTION("TF's default is one replica") {
    rt::Result<DeviceAssignment> assignment = DeviceAssignment::build(topology_for(8));
    REQUIRE(assignment.is_ok());
    CHECK(layout_of(*assignment) == Layout{{{0, 0, 0, 0}}});
  }
}

TEST_CASE("The [2,2,1,2] example of runtime/tpu/TF_BEHAVIOUR.md section 5 and TF's replica_shape preference",
          "[device_assignment]") {
  const Topology v2_8 = topology_of({2, 2, 1, 2}, {0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1,
                                                   0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 1});
  // 8 replicas: replica r at ((r/2)%2, (r/4)%2, 0, r%2).
  CHECK(layout_of(build(v2_8, {}, {}, 8)) == Layout{{{0, 0, 0, 0}}, {{0, 0, 0, 1}}, {{1, 0, 0, 0}}, {{1, 0, 0, 1}},
                                                    {{0, 1, 0, 0}}, {{0, 1, 0, 1}}, {{1, 1, 0, 0}}, {{1, 1, 0, 1}}});
  // 4 replicas: TF prefers replica_shape (2,1,1,2) over (1,1,2,2): both cores of a chip, then along x.
  CHECK(layout_of(build(v2_8, {}, {}, 4)) == Layout{{{0, 0, 0, 0}}, {{0, 0, 0, 1}}, {{1, 0, 0, 0}}, {{1, 0, 0, 1}}});
}

TEST_CASE("model-parallel replicas on the default meshes", "[device_assignment]") {
  SECTION("2 cores, shape [1,1,1,2]: one replica over both cores") {
    const DeviceAssignment assignment = build(topology_for(2), {1, 1, 1, 2}, {}, DeviceAssignment::kAllReplicas);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 0, 1}}});
  }
  SECTION("4 cores, shape [1,1,1,2]") {
    const DeviceAssignment assignment = build(topology_for(4), {1, 1, 1, 2}, {}, 2);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 0, 1}}, {{0, 0, 1, 0}, {0, 0, 1, 1}}});
  }
  SECTION("4 cores, shape [1,1,2,2]") {
    const DeviceAssignment assignment = build(topology_for(4), {1, 1, 2, 2}, {}, 1);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 1, 0}, {0, 0, 1, 1}}});
  }
  SECTION("8 cores, shape [1,1,1,2], all 4 replicas: ring order through the chips") {
    const DeviceAssignment assignment = build(topology_for(8), {1, 1, 1, 2}, {}, 4);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 0, 1}},
                                          {{0, 1, 0, 0}, {0, 1, 0, 1}},
                                          {{0, 1, 1, 0}, {0, 1, 1, 1}},
                                          {{0, 0, 1, 0}, {0, 0, 1, 1}}});
    CHECK(cores_of(assignment) == std::vector<Ints>{{0, 1}, {2, 3}, {6, 7}, {4, 5}});
  }
  SECTION("8 cores, shape [1,1,1,2], 2 replicas: fewer than fit, block order") {
    const DeviceAssignment assignment = build(topology_for(8), {1, 1, 1, 2}, {}, 2);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 0, 1}}, {{0, 1, 0, 0}, {0, 1, 0, 1}}});
  }
  SECTION("8 cores, shape [1,1,2,2]") {
    const DeviceAssignment assignment = build(topology_for(8), {1, 1, 2, 2}, {}, 2);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 1, 0}, {0, 0, 1, 1}},
                                          {{0, 1, 0, 0}, {0, 1, 0, 1}, {0, 1, 1, 0}, {0, 1, 1, 1}}});
    CHECK(cores_of(assignment) == std::vector<Ints>{{0, 1, 4, 5}, {2, 3, 6, 7}});
  }
  SECTION("8 cores, shape [1,2,2,2]: one replica, logical cores along the ring") {
    const DeviceAssignment assignment = build(topology_for(8), {1, 2, 2, 2}, {}, 1);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 1, 0, 0}, {0, 1, 0, 1},
                                           {0, 1, 1, 0}, {0, 1, 1, 1}, {0, 0, 1, 0}, {0, 0, 1, 1}}});
    CHECK(cores_of(assignment) == std::vector<Ints>{{0, 1, 2, 3, 6, 7, 4, 5}});
  }
  SECTION("16 cores, shape [1,1,1,2], all 8 replicas: _ring_3d(2,2,2)") {
    const DeviceAssignment assignment = build(topology_for(16), {1, 1, 1, 2}, {}, 8);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 0, 1}},
                                          {{1, 0, 0, 0}, {1, 0, 0, 1}},
                                          {{1, 1, 0, 0}, {1, 1, 0, 1}},
                                          {{0, 1, 0, 0}, {0, 1, 0, 1}},
                                          {{0, 1, 1, 0}, {0, 1, 1, 1}},
                                          {{1, 1, 1, 0}, {1, 1, 1, 1}},
                                          {{1, 0, 1, 0}, {1, 0, 1, 1}},
                                          {{0, 0, 1, 0}, {0, 0, 1, 1}}});
    CHECK(cores_of(assignment) ==
          std::vector<Ints>{{0, 1}, {2, 3}, {6, 7}, {4, 5}, {12, 13}, {14, 15}, {10, 11}, {8, 9}});
  }
  SECTION("16 cores, shape [1,1,1,2], DeviceOrderMode::kMesh: block order") {
    const DeviceAssignment assignment = build(topology_for(16), {1, 1, 1, 2}, {}, 8, DeviceOrderMode::kMesh);
    CHECK(cores_of(assignment) ==
          std::vector<Ints>{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
  }
  SECTION("16 cores, shape [1,1,1,2], 4 replicas") {
    const DeviceAssignment assignment = build(topology_for(16), {1, 1, 1, 2}, {}, 4);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 0, 1}},
                                          {{1, 0, 0, 0}, {1, 0, 0, 1}},
                                          {{0, 1, 0, 0}, {0, 1, 0, 1}},
                                          {{1, 1, 0, 0}, {1, 1, 0, 1}}});
  }
  SECTION("16 cores, shape [1,2,2,2], 2 replicas") {
    const DeviceAssignment assignment = build(topology_for(16), {1, 2, 2, 2}, {}, 2);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 1, 0, 0}, {0, 1, 0, 1},
                                           {0, 1, 1, 0}, {0, 1, 1, 1}, {0, 0, 1, 0}, {0, 0, 1, 1}},
                                          {{1, 0, 0, 0}, {1, 0, 0, 1}, {1, 1, 0, 0}, {1, 1, 0, 1},
                                           {1, 1, 1, 0}, {1, 1, 1, 1}, {1, 0, 1, 0}, {1, 0, 1, 1}}});
    CHECK(cores_of(assignment) == std::vector<Ints>{{0, 1, 4, 5, 12, 13, 8, 9}, {2, 3, 6, 7, 14, 15, 10, 11}});
  }
  SECTION("16 cores, 3 replicas: replica_shape (2,1,1,2)") {
    const DeviceAssignment assignment = build(topology_for(16), {}, {}, 3);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}}, {{0, 0, 0, 1}}, {{1, 0, 0, 0}}});
  }
}

TEST_CASE("computation strides", "[device_assignment]") {
  SECTION("8 cores, shape [1,1,2,1], stride [1,1,1,2]") {
    const DeviceAssignment assignment = build(topology_for(8), {1, 1, 2, 1}, {1, 1, 1, 2}, 4);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 1, 0}},
                                          {{0, 0, 0, 1}, {0, 0, 1, 1}},
                                          {{0, 1, 0, 0}, {0, 1, 1, 0}},
                                          {{0, 1, 0, 1}, {0, 1, 1, 1}}});
    CHECK(cores_of(assignment) == std::vector<Ints>{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  }
  SECTION("[1,1,4,2] mesh, shape [1,1,2,1], stride [1,1,2,1]: replicas interleave along z") {
    const Topology topology = topology_of({1, 1, 4, 2}, {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 1,
                                                         0, 0, 2, 0, 0, 0, 2, 1, 0, 0, 3, 0, 0, 0, 3, 1});
    CHECK(DeviceAssignment::max_replicas(topology, span({1, 1, 2, 1}), span({1, 1, 2, 1})).value() == 4);
    const DeviceAssignment assignment = build(topology, {1, 1, 2, 1}, {1, 1, 2, 1}, DeviceAssignment::kAllReplicas);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 2, 0}},
                                          {{0, 0, 0, 1}, {0, 0, 2, 1}},
                                          {{0, 0, 1, 0}, {0, 0, 3, 0}},
                                          {{0, 0, 1, 1}, {0, 0, 3, 1}}});
    CHECK(cores_of(assignment) == std::vector<Ints>{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  }
}

TEST_CASE("ring orders of TF's _ring_3d and _open_ring_2d", "[device_assignment]") {
  SECTION("[4,2,1,2] mesh, shape [1,1,1,2]: the flat 2-D ring of _open_ring_2d's docstring") {
    Ints coordinates;
    for (int32_t y = 0; y < 2; ++y)
      for (int32_t x = 0; x < 4; ++x)
        for (int32_t core = 0; core < 2; ++core) coordinates.insert(coordinates.end(), {x, y, 0, core});
    const DeviceAssignment assignment = build(topology_of({4, 2, 1, 2}, coordinates), {1, 1, 1, 2}, {}, 8);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}, {0, 0, 0, 1}},
                                          {{1, 0, 0, 0}, {1, 0, 0, 1}},
                                          {{2, 0, 0, 0}, {2, 0, 0, 1}},
                                          {{3, 0, 0, 0}, {3, 0, 0, 1}},
                                          {{3, 1, 0, 0}, {3, 1, 0, 1}},
                                          {{2, 1, 0, 0}, {2, 1, 0, 1}},
                                          {{1, 1, 0, 0}, {1, 1, 0, 1}},
                                          {{0, 1, 0, 0}, {0, 1, 0, 1}}});
  }
  SECTION("[2,2,2,1] mesh (one core per chip): all-ones shape takes the 3-D ring") {
    Ints coordinates;
    for (int32_t z = 0; z < 2; ++z)
      for (int32_t y = 0; y < 2; ++y)
        for (int32_t x = 0; x < 2; ++x) coordinates.insert(coordinates.end(), {x, y, z, 0});
    const DeviceAssignment assignment = build(topology_of({2, 2, 2, 1}, coordinates), {}, {}, 8);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}}, {{1, 0, 0, 0}}, {{1, 1, 0, 0}}, {{0, 1, 0, 0}},
                                          {{0, 1, 1, 0}}, {{1, 1, 1, 0}}, {{1, 0, 1, 0}}, {{0, 0, 1, 0}}});
    CHECK(cores_of(assignment) == std::vector<Ints>{{0}, {1}, {3}, {2}, {6}, {7}, {5}, {4}});
  }
  SECTION("9 cores [1,3,3,1]: odd dimensions fall back to x-fastest order") {
    const DeviceAssignment assignment = build(topology_for(9), {}, {}, 9);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}}, {{0, 1, 0, 0}}, {{0, 2, 0, 0}},
                                          {{0, 0, 1, 0}}, {{0, 1, 1, 0}}, {{0, 2, 1, 0}},
                                          {{0, 0, 2, 0}}, {{0, 1, 2, 0}}, {{0, 2, 2, 0}}});
  }
  SECTION("3 cores [1,1,3,1]: a line along z") {
    const DeviceAssignment assignment = build(topology_for(3), {}, {}, 3, DeviceOrderMode::kRing);
    CHECK(layout_of(assignment) == Layout{{{0, 0, 0, 0}}, {{0, 0, 1, 0}}, {{0, 0, 2, 0}}});
  }
}

TEST_CASE("degraded topologies hand out present devices in task order", "[device_assignment]") {
  // Three cores on [1,1,2,2]: (0,0,1,1) is missing.
  const Topology topology = topology_of({1, 1, 2, 2}, {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0});
  const DeviceAssignment all = build(topology, {}, {}, DeviceAssignment::kAllReplicas);
  CHECK(layout_of(all) == Layout{{{0, 0, 0, 0}}, {{0, 0, 0, 1}}, {{0, 0, 1, 0}}});
  const DeviceAssignment pair = build(topology, {1, 1, 1, 2}, {}, 1);
  CHECK(layout_of(pair) == Layout{{{0, 0, 0, 0}, {0, 0, 0, 1}}});
  CHECK(build_error(topology, {}, {}, 4) == "requested 4 replicas of 1 cores but the topology has only 3 devices (1 missing)");
  CHECK(build_error(topology, {1, 1, 1, 2}, {}, 2) ==
        "requested 2 replicas of 2 cores but the topology has only 3 devices (1 missing)");
  CHECK(build_error(topology, {}, {1, 1, 2, 1}, 1) ==
        "computation_stride must be all ones on a topology with missing devices; got computation_stride=[1 1 2 1]");
}

TEST_CASE("build errors carry TF's texts", "[device_assignment]") {
  const Topology eight = topology_for(8);
  CHECK(build_error(eight, {1, 1, 2}, {}, 1) == "computation_shape must have shape [4]; got (3,)");
  CHECK(build_error(eight, {}, {1, 1}, 1) == "computation_stride must have shape [4]; got (2,)");
  CHECK(build_error(eight, {1, 0, 1, 1}, {}, 1) == "computation_shape must be positive; got computation_shape=[1 0 1 1]");
  CHECK(build_error(eight, {1, -1, 1, 1}, {}, 1) ==
        "computation_shape must be positive; got computation_shape=[ 1 -1  1  1]");
  CHECK(build_error(eight, {}, {1, 1, 0, 1}, 1) ==
        "computation_stride must be positive; got computation_stride=[1 1 0 1]");
  CHECK(build_error(eight, {2, 1, 1, 1}, {}, 1) ==
        "computation footprint [2 1 1 1] does not fit in TPU topology shape [1 2 2 2]");
  CHECK(build_error(eight, {1, 1, 2, 2}, {1, 2, 2, 1}, 1) ==
        "computation footprint [1 2 4 2] does not fit in TPU topology shape [1 2 2 2]");
  CHECK(build_error(eight, {1, 1, 1, 2}, {}, 5) ==
        "requested 5 replicas but only 4 replicas with shape [1 1 1 2] and computation_stride [1 1 1 1] fit in a "
        "TPU mesh of shape [1 2 2 2]");
  CHECK(build_error(topology_for(16), {}, {2, 1, 1, 1}, 17) ==
        "requested 17 replicas but only 16 replicas with shape [1 1 1 1] and computation_stride [2 1 1 1] fit in a "
        "TPU mesh of shape [2 2 2 2]");
  CHECK(build_error(eight, {}, {}, -2) == "negative dimensions are not allowed");
  CHECK(build_error(eight, {1, 1, 1, 2}, {}, 2, DeviceOrderMode::kRing) ==
        "device_order_mode=DeviceOrderMode.RING is not compatible with the 3D tiling current topology.  Try setting "
        "device_order_mode=DeviceOrderMode.AUTO");
  CHECK(build_error(eight, {}, {}, 8, DeviceOrderMode::kRing) ==
        "device_order_mode=DeviceOrderMode.RING is not compatible with the 3D tiling current topology.  Try setting "
        "device_order_mode=DeviceOrderMode.AUTO");
  CHECK(DeviceAssignment::build(eight, span({1, 1, 2}), {}, 1).status().code() == rt::StatusCode::kInvalidArgument);
  CHECK(error_of(DeviceAssignment::max_replicas(eight, span({0, 1, 1, 1}))) ==
        "computation_shape must be positive; got computation_shape=[0 1 1 1]");
}

TEST_CASE("zero replicas is an empty assignment, as in TF", "[device_assignment]") {
  const DeviceAssignment none = build(topology_for(4), {1, 1, 1, 2}, {}, 0);
  CHECK(none.num_replicas() == 0);
  CHECK(none.num_cores_per_replica() == 2);
  CHECK_FALSE(none.placement_of_core(0).assigned());
}

TEST_CASE("accessors: coordinates, ordinals, device names, placements", "[device_assignment]") {
  const DeviceAssignment assignment = build(topology_for(8), {1, 1, 1, 2}, {}, 4);  // ring: cores {0,1},{2,3},{6,7},{4,5}
  const rt::tpu::MeshCoordinates at = assignment.coordinates(2, 1).value();
  CHECK(Ints(at.begin(), at.end()) == Ints{0, 1, 1, 1});
  CHECK(assignment.tpu_ordinal(2, 1).value() == 7);
  CHECK(assignment.tpu_ordinal().value() == 0);
  CHECK(text(assignment.host_device(3, 0).value()) == "/task:0/device:CPU:0");
  CHECK(text(assignment.host_device(3, 0, "worker").value()) == "/job:worker/task:0/device:CPU:0");
  CHECK(text(assignment.tpu_device(3, 1).value()) == "/task:0/device:TPU:5");
  CHECK(text(assignment.tpu_device(1, 0, "tpu_worker").value()) == "/job:tpu_worker/task:0/device:TPU:2");
  CHECK(assignment.placement_of_core(6).replica == 2);
  CHECK(assignment.placement_of_core(6).logical_core == 0);
  CHECK(assignment.placement_of_core(5).replica == 3);
  CHECK(assignment.placement_of_core(5).logical_core == 1);

  // numpy's IndexError texts for out-of-range indices.
  CHECK(error_of(assignment.coordinates(4, 0)) == "index 4 is out of bounds for axis 0 with size 4");
  CHECK(error_of(assignment.tpu_ordinal(0, 2)) == "index 2 is out of bounds for axis 1 with size 2");
  CHECK(assignment.tpu_device(9, 0).status().code() == rt::StatusCode::kOutOfRange);

  // lookup_replicas is a dict lookup in TF: negative keys find nothing.
  CHECK(error_of(assignment.lookup_replicas(0, -1)) == "Can not find any replica in task: 0 contains logical_core: -1 ");
  CHECK(error_of(assignment.lookup_replicas(-1, 0)) == "Can not find any replica in task: -1 contains logical_core: 0 ");

  // lookup_replicas: every replica is on task 0.
  const rt::Result<rt::tpu::ReplicaList> replicas = assignment.lookup_replicas(0, 1);
  REQUIRE(replicas.is_ok());
  CHECK(Ints(replicas->span().begin(), replicas->span().end()) == Ints{0, 1, 2, 3});
  CHECK(error_of(assignment.lookup_replicas(1, 0)) == "Can not find any replica in task: 1 contains logical_core: 0 ");
  CHECK(error_of(assignment.lookup_replicas(0, 2)) == "Can not find any replica in task: 0 contains logical_core: 2 ");

  const DeviceAssignment two_of_eight = build(topology_for(8), {}, {}, 2);
  CHECK_FALSE(two_of_eight.placement_of_core(5).assigned());
}

TEST_CASE("accessors index core_assignment like numpy: negative indices count from the end",
          "[device_assignment]") {
  // Ring order on 8 cores, 4 replicas of 2: cores {0,1},{2,3},{6,7},{4,5}; replica 3 is cores 4 and 5 at
  // (0,0,1,0) and (0,0,1,1), replica 0 cores 0 and 1 at (0,0,0,0) and (0,0,0,1).
  const DeviceAssignment assignment = build(topology_for(8), {1, 1, 1, 2}, {}, 4);
  const rt::tpu::MeshCoordinates last = assignment.coordinates(-1, -1).value();
  CHECK(Ints(last.begin(), last.end()) == Ints{0, 0, 1, 1});
  const rt::tpu::MeshCoordinates first = assignment.coordinates(-4, -2).value();
  CHECK(Ints(first.begin(), first.end()) == Ints{0, 0, 0, 0});
  const rt::tpu::MeshCoordinates mixed = assignment.coordinates(-2, 1).value();  // replica 2, core 7
  CHECK(Ints(mixed.begin(), mixed.end()) == Ints{0, 1, 1, 1});
  CHECK(assignment.tpu_ordinal(-1, -1).value() == 5);
  CHECK(assignment.tpu_ordinal(-1).value() == 4);
  CHECK(assignment.tpu_ordinal(-4, -1).value() == 1);
  CHECK(text(assignment.host_device(-1, -2, "worker").value()) == "/job:worker/task:0/device:CPU:0");
  CHECK(text(assignment.tpu_device(-1, 0).value()) == "/task:0/device:TPU:4");
  CHECK(text(assignment.tpu_device(-2, -1).value()) == "/task:0/device:TPU:7");

  // Outside [-size, size): numpy's IndexError with the index as given, axis 0 checked first.
  CHECK(error_of(assignment.coordinates(-5, 0)) == "index -5 is out of bounds for axis 0 with size 4");
  CHECK(error_of(assignment.tpu_ordinal(0, -3)) == "index -3 is out of bounds for axis 1 with size 2");
  CHECK(error_of(assignment.host_device(-5, -3)) == "index -5 is out of bounds for axis 0 with size 4");
  CHECK(error_of(assignment.tpu_device(3, -3)) == "index -3 is out of bounds for axis 1 with size 2");
  CHECK(assignment.coordinates(-5, 0).status().code() == rt::StatusCode::kOutOfRange);
  const DeviceAssignment none = build(topology_for(4), {1, 1, 1, 2}, {}, 0);
  CHECK(error_of(none.coordinates(-1, 0)) == "index -1 is out of bounds for axis 0 with size 0");

  // Two tasks on [1,1,2,2], one core per replica: the last replica runs on task 1, device 1.
  const int32_t mesh[] = {1, 1, 2, 2};
  const int32_t devices[] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 1};
  const DeviceAssignment per_core = build(*Topology::create(mesh, 2, 2, devices), {}, {}, 4);
  CHECK(text(per_core.host_device(-1).value()) == "/task:1/device:CPU:0");
  CHECK(text(per_core.tpu_device(-2).value()) == "/task:1/device:TPU:0");
  CHECK(per_core.tpu_ordinal(-1, -1).value() == 1);
  CHECK(text(per_core.host_device(-4).value()) == "/task:0/device:CPU:0");
}

TEST_CASE("explicit core assignments", "[device_assignment]") {
  const Topology four = topology_for(4);
  rt::Result<DeviceAssignment> swapped =
      DeviceAssignment::create(four, span({0, 0, 1, 0, 0, 0, 0, 1}), span({2, 1, 4}));
  REQUIRE(swapped.is_ok());
  CHECK(swapped->num_replicas() == 2);
  CHECK(swapped->num_cores_per_replica() == 1);
  CHECK(swapped->tpu_ordinal(0).value() == 2);
  CHECK(swapped->tpu_ordinal(1).value() == 1);
  CHECK(swapped->placement_of_core(2).replica == 0);
  CHECK_FALSE(swapped->placement_of_core(0).assigned());

  // lookup_replicas over two tasks: task 1 owns the z = 1 chip.
  const int32_t mesh[] = {1, 1, 2, 2};
  const int32_t devices[] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 1};
  const Topology two_tasks = *Topology::create(mesh, 2, 2, devices);
  const DeviceAssignment per_core = build(two_tasks, {}, {}, 4);
  CHECK(cores_of(per_core) == std::vector<Ints>{{0}, {1}, {2}, {3}});
  const rt::Result<rt::tpu::ReplicaList> on_task_1 = per_core.lookup_replicas(1, 0);
  REQUIRE(on_task_1.is_ok());
  CHECK(Ints(on_task_1->span().begin(), on_task_1->span().end()) == Ints{2, 3});
  CHECK(text(per_core.host_device(3).value()) == "/task:1/device:CPU:0");
  CHECK(text(per_core.tpu_device(2).value()) == "/task:1/device:TPU:0");
  CHECK(per_core.tpu_ordinal(3).value() == 1);

  CHECK(error_of(DeviceAssignment::create(four, span({0, 0, 0, 0, 0, 0, 0, 1}), span({2, 4}))) ==
        "core_assignment must be a rank 3 numpy array, got shape (2, 4)");
  CHECK(error_of(DeviceAssignment::create(four, span({0, 0, 0, 0, 0, 0}), span({2, 1, 3}))) ==
        "core_assignment.shape[-1] must have size equal to topology rank (4), got core_assignment.shape=(2, 1, 3)");
  CHECK(error_of(DeviceAssignment::create(four, span({0, 0, 0, 0}), span({2, 1, 4}))) ==
        "core_assignment has 4 values but its shape (2, 1, 4) needs 8");
  CHECK(error_of(DeviceAssignment::create(four, span({0, 0, 2, 0}), span({1, 1, 4}))) ==
        "index 2 is out of bounds for axis 2 with size 2");
  // Negative coordinates: numpy would wrap them in TF; the runtime rejects them.
  CHECK(error_of(DeviceAssignment::create(four, span({0, 0, -1, 0}), span({1, 1, 4}))) ==
        "device coordinates must be >= 0; got [0, 0, -1, 0]");
  CHECK(error_of(DeviceAssignment::create(four, span({0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1}), span({1, 3, 4}))) ==
        "core_assignment puts replica 0 logical core 0 and replica 0 logical core 2 on the same TPU core [0, 0, 1, 1]");
  std::vector<int32_t> sixty_five(65 * 4, 0);
  CHECK(error_of(DeviceAssignment::create(four, span(sixty_five), span({65, 1, 4}))) ==
        "core_assignment has 65 (replica, logical core) entries but a pod has at most 64 TPU devices (kMaxPodDevices)");
  const Topology degraded = topology_of({1, 1, 2, 2}, {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0});
  CHECK(error_of(DeviceAssignment::create(degraded, span({0, 0, 1, 1}), span({1, 1, 4}))) ==
        "core_assignment[0][0] = [0, 0, 1, 1] is a missing device of the topology");
}
