// TF's TopologyProto (tensorflow/core/protobuf/tpu/topology.proto) in protobuf's wire format, pure:
// the four fields a Topology has, written as TF's serializer writes them and read as protobuf's parser
// reads them. Topology::from_serialized / serialized() (topology.hpp) build on it.
//
//   message TopologyProto {
//     repeated int32 mesh_shape = 1;                // proto3: packed
//     int32 num_tasks = 2;
//     int32 num_tpu_devices_per_task = 3;
//     repeated int32 device_coordinates = 4;        // packed, [num_tasks][num_tpu_devices_per_task][4]
//     TPUHardwareFeature tpu_hardware_feature = 5;  // not a Topology's: skipped when read, never written
//   }
//
// Writing (serialize_topology_proto): fields in number order; a zero scalar and an empty repeated
// field are left out (proto3); a repeated field is one length-delimited run of varints (tag 0x0A and
// 0x22); an int32 is a varint of its 64-bit sign extension (a negative one takes 10 bytes).
// Reading (parse_topology_proto): either form of a repeated field (packed, or one varint per element),
// repeated runs appended, the last value of a scalar, unknown fields (field 5 included) and fields
// with another wire type skipped, int32s truncated from 64 bits, as protobuf does. Bytes that are not
// a message (a truncated varint or length, a varint over 10 bytes, field number 0, a group, an end-group
// tag) are protobuf's DecodeError: "Error parsing message" (INVALID_ARGUMENT).
#pragma once
#include "hal/core.hpp"
#include "hal/support/result.hpp"
#include "runtime/pod/pod_devices.hpp"

namespace rt::tpu {

// What the runtime keeps of a TopologyProto: values beyond these caps are counted, not stored.
inline constexpr size_t kMaxProtoMeshShape = 16;
inline constexpr size_t kMaxProtoCoordinates = size_t{kMaxPodDevices} * 4;  // a whole pod's devices
// The longest encoding of a Topology the runtime can hold (every value a 5-byte varint).
inline constexpr size_t kMaxTopologyProtoBytes = 2 + 4 * 5 + 2 * 11 + 3 + kMaxProtoCoordinates * 5;

struct TopologyProtoFields {
  int32_t mesh_shape[kMaxProtoMeshShape] = {};
  size_t mesh_shape_size = 0;  // elements read (at most kMaxProtoMeshShape stored)
  int32_t num_tasks = 0;
  int32_t num_tpu_devices_per_task = 0;
  int32_t device_coordinates[kMaxProtoCoordinates] = {};
  size_t device_coordinates_size = 0;  // elements read (at most kMaxProtoCoordinates stored)
};

// A serialized TopologyProto (TF's bytes).
struct TopologyProtoBytes {
  uint8_t data[kMaxTopologyProtoBytes] = {};
  size_t size = 0;

  Span<const uint8_t> span() const { return Span<const uint8_t>(data, size); }
};

Result<TopologyProtoFields> parse_topology_proto(Span<const uint8_t> serialized);
// The fields as TF's Topology.serialized() sets them; the values must fit kMaxTopologyProtoBytes
// (any Topology does).
TopologyProtoBytes serialize_topology_proto(Span<const int32_t> mesh_shape, int32_t num_tasks,
                                            int32_t num_tpu_devices_per_task, Span<const int32_t> device_coordinates);

}  // namespace rt::tpu
