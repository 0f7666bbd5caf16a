// TopologyProto's wire format (runtime/tpu/mesh/topology_proto.cpp) and TF's Topology(serialized=...) /
// topology.serialized() (topology.cpp). Every byte string is written by hand from topology.proto:
// field 1 mesh_shape (repeated int32, packed: tag 0x0A), 2 num_tasks (varint: tag 0x10), 3
// num_tpu_devices_per_task (tag 0x18), 4 device_coordinates (packed: tag 0x22), 5 tpu_hardware_feature
// (a message: tag 0x2A); lengths and values are varints, a negative int32 ten bytes.
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <string>
#include <vector>

#include "runtime/tpu/mesh/device_assignment.hpp"
#include "runtime/tpu/mesh/topology.hpp"

namespace {

using test_helpers::message;
using rt::tpu::Topology;
using Bytes = std::vector<uint8_t>;

rt::Span<const uint8_t> span_of(const Bytes& bytes) { return rt::Span<const uint8_t>(bytes.data(), bytes.size()); }
Bytes bytes_of(const rt::tpu::TopologyProtoBytes& bytes) { return Bytes(bytes.data, bytes.data + bytes.size); }

Topology parsed(const Bytes& bytes) {
  rt::Result<Topology> topology = Topology::from_serialized(span_of(bytes));
  if (!topology.is_ok()) FAIL(message(topology.status()));
  return *topology;
}

std::string parse_error(const Bytes& bytes) {
  rt::Result<Topology> topology = Topology::from_serialized(span_of(bytes));
  REQUIRE_FALSE(topology.is_ok());
  CHECK(topology.status().code() == rt::StatusCode::kInvalidArgument);
  return message(topology.status());
}

// A board of 2 cores: mesh [1,1,1,2], one task, two devices at (0,0,0,0) and (0,0,0,1).
const Bytes kTwoCores = {0x0A, 0x04, 0x01, 0x01, 0x01, 0x02,  // mesh_shape
                         0x10, 0x01,                          // num_tasks 1
                         0x18, 0x02,                          // num_tpu_devices_per_task 2
                         0x22, 0x08, 0, 0, 0, 0, 0, 0, 0, 1};  // device_coordinates

}  // namespace

TEST_CASE("serialized(): TopologyProto bytes as TF writes them", "[topology]") {
  const Topology two = *Topology::for_cores(2);
  CHECK(bytes_of(two.serialized()) == kTwoCores);
  // 8 cores: mesh [1,2,2,2], core-within-chip fastest, then x, y, z: 32 coordinates, 0x20 bytes.
  const Bytes eight = {0x0A, 0x04, 1, 2, 2, 2, 0x10, 0x01, 0x18, 0x08, 0x22, 0x20,
                       0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1,
                       0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1};
  CHECK(bytes_of(Topology::for_cores(8)->serialized()) == eight);
  // One core: every coordinate is 0, still written (a packed field of four zero bytes).
  const Bytes one = {0x0A, 0x04, 1, 1, 1, 1, 0x10, 0x01, 0x18, 0x01, 0x22, 0x04, 0, 0, 0, 0};
  CHECK(bytes_of(Topology::for_cores(1)->serialized()) == one);
  // A pod of 2 boards of 1 core: mesh [1,1,2,1], task 1's device at z = 1.
  const Bytes pod = {0x0A, 0x04, 1, 1, 2, 1, 0x10, 0x02, 0x18, 0x01, 0x22, 0x08, 0, 0, 0, 0, 0, 0, 1, 0};
  CHECK(bytes_of(Topology::for_pod(2, 1)->serialized()) == pod);
}

TEST_CASE("Topology(serialized=...): the same topology back, in either encoding", "[topology]") {
  const Topology two = parsed(kTwoCores);
  CHECK(two.num_tasks() == 1);
  CHECK(two.num_tpus_per_task() == 2);
  CHECK(std::vector<int32_t>(two.mesh_shape().begin(), two.mesh_shape().end()) == std::vector<int32_t>{1, 1, 1, 2});
  CHECK(two.device_coordinates(0, 1)[3] == 1);
  CHECK(bytes_of(two.serialized()) == kTwoCores);
  // Unpacked repeated fields (one tag per element), fields out of order, a repeated scalar (last
  // wins), an unknown field 5 (tpu_hardware_feature {embedding_feature: V1}) and field 9: the same.
  const Bytes loose = {0x22, 0x04, 0, 0, 0, 0,              // device 0's coordinates, packed
                       0x20, 0x00, 0x20, 0x00, 0x20, 0x00,  // device 1's, one element at a time
                       0x20, 0x01,
                       0x08, 0x01, 0x08, 0x01, 0x08, 0x01, 0x08, 0x02,  // mesh_shape unpacked
                       0x10, 0x07, 0x10, 0x01,                          // num_tasks 7, then 1
                       0x2A, 0x02, 0x08, 0x01,                          // tpu_hardware_feature
                       0x48, 0x96, 0x01,                                // field 9 = 150
                       0x18, 0x02};
  CHECK(bytes_of(parsed(loose).serialized()) == kTwoCores);
}

TEST_CASE("Topology(serialized=...) errors: TF's _parse_topology texts, protobuf's DecodeError", "[topology]") {
  // mesh_shape [1 1 2] (three entries).
  CHECK(parse_error({0x0A, 0x03, 1, 1, 2}) == "`mesh_shape` must be a vector of size 4 with positive entries; got [1 1 2]");
  CHECK(parse_error({0x0A, 0x04, 1, 0, 1, 2}) ==
        "`mesh_shape` must be a vector of size 4 with positive entries; got [1 0 1 2]");
  // num_tasks -1: ten bytes of sign extension.
  CHECK(parse_error({0x0A, 0x04, 1, 1, 1, 2, 0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}) ==
        "`num_tasks` must be >= 0; got -1");
  CHECK(parse_error({0x0A, 0x04, 1, 1, 1, 2, 0x10, 0x01, 0x18, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                     0x01}) == "`num_tpu_devices_per_task` must be >= 0; got -2");
  // Two devices announced, one device's coordinates given.
  CHECK(parse_error({0x0A, 0x04, 1, 1, 1, 2, 0x10, 0x01, 0x18, 0x02, 0x22, 0x04, 0, 0, 0, 0}) ==
        "`device_coordinates` must have shape num_tasks (1) * num_tpu_devices_per_task (2) * len(mesh_shape) "
        "([1, 1, 1, 2]); got shape 4");
  // A coordinate -1 (0xFF x9, 0x01).
  CHECK(parse_error({0x0A, 0x04, 1, 1, 1, 2, 0x10, 0x01, 0x18, 0x01, 0x22, 0x0D, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF,
                     0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}) == "`device_coordinates` must be >= 0");
  // Not a message: a length past the end, a truncated varint, field number 0, a group.
  CHECK(parse_error({0x0A, 0x05, 1, 1, 1, 2}) == "Error parsing message");
  CHECK(parse_error({0x0A, 0x04, 1, 1, 1, 2, 0x10, 0x81}) == "Error parsing message");
  CHECK(parse_error({0x00, 0x01}) == "Error parsing message");
  CHECK(parse_error({0x0B, 0x0C}) == "Error parsing message");
  // The runtime's own check after TF's: two devices at one coordinate.
  CHECK(parse_error({0x0A, 0x04, 1, 1, 1, 2, 0x10, 0x01, 0x18, 0x02, 0x22, 0x08, 0, 0, 0, 1, 0, 0, 0, 1}) ==
        "`device_coordinates` puts task 0 device 0 and task 0 device 1 at the same coordinates [0, 0, 0, 1]");
}

TEST_CASE("a device assignment's topology is the one it was built on", "[topology][device_assignment]") {
  const Topology eight = *Topology::for_cores(8);
  const rt::tpu::DeviceAssignment assignment = *rt::tpu::DeviceAssignment::build(eight);
  CHECK(bytes_of(assignment.topology().serialized()) == bytes_of(eight.serialized()));
}
