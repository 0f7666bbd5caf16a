// TopologyProto's wire format both ways (topology_proto.hpp).
#include "topology_proto.hpp"

namespace rt::tpu {
namespace {

enum WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

enum Field : uint32_t { kMeshShape = 1, kNumTasks = 2, kNumTpuDevicesPerTask = 3, kDeviceCoordinates = 4 };

Status decode_error() { return invalid_argument("Error parsing message"); }

// ---------------------------------------------------------------- reading

class WireReader {
 public:
  explicit WireReader(Span<const uint8_t> bytes) : bytes_(bytes) {}
  bool done() const { return position_ == bytes_.size(); }
  size_t position() const { return position_; }

  // A varint of at most 10 bytes.
  Result<uint64_t> varint() {
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
      if (done()) return decode_error();
      const uint8_t byte = bytes_[position_++];
      value |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80u) == 0) return value;
    }
    return decode_error();
  }
  // `count` bytes as a reader of their own (a length-delimited field's payload).
  Result<WireReader> take(uint64_t count) {
    if (count > bytes_.size() - position_) return decode_error();
    const WireReader payload(Span<const uint8_t>(bytes_.data() + position_, size_t(count)));
    position_ += size_t(count);
    return payload;
  }
  Status skip(WireType type) {
    switch (type) {
      case kVarint: return varint().status();
      case kFixed64: return take(8).status();
      case kFixed32: return take(4).status();
      case kLengthDelimited: return take(RT_TRY(varint())).status();
    }
    return decode_error();  // groups (3, 4) and the unused wire types 6, 7
  }

 private:
  Span<const uint8_t> bytes_;
  size_t position_ = 0;
};

// protobuf's int32: the low 32 bits of the varint.
int32_t as_int32(uint64_t value) { return static_cast<int32_t>(static_cast<uint32_t>(value)); }

void append(int32_t* values, size_t capacity, size_t& size, int32_t value) {
  if (size < capacity) values[size] = value;
  ++size;
}

// One element (wire type 0) or a packed run (wire type 2) of a repeated int32 field.
Status read_repeated(WireReader& reader, WireType type, int32_t* values, size_t capacity, size_t& size) {
  if (type == kVarint) {
    append(values, capacity, size, as_int32(RT_TRY(reader.varint())));
    return Status::ok();
  }
  WireReader packed = RT_TRY(reader.take(RT_TRY(reader.varint())));
  while (!packed.done()) append(values, capacity, size, as_int32(RT_TRY(packed.varint())));
  return Status::ok();
}

Status read_field(WireReader& reader, uint32_t field, WireType type, TopologyProtoFields& fields) {
  const bool repeated_form = type == kVarint || type == kLengthDelimited;
  if (field == kMeshShape && repeated_form)
    return read_repeated(reader, type, fields.mesh_shape, kMaxProtoMeshShape, fields.mesh_shape_size);
  if (field == kDeviceCoordinates && repeated_form)
    return read_repeated(reader, type, fields.device_coordinates, kMaxProtoCoordinates,
                         fields.device_coordinates_size);
  if (field == kNumTasks && type == kVarint) {
    fields.num_tasks = as_int32(RT_TRY(reader.varint()));
    return Status::ok();
  }
  if (field == kNumTpuDevicesPerTask && type == kVarint) {
    fields.num_tpu_devices_per_task = as_int32(RT_TRY(reader.varint()));
    return Status::ok();
  }
  return reader.skip(type);  // an unknown field, or a known one with another wire type
}

// ---------------------------------------------------------------- writing

class WireWriter {
 public:
  explicit WireWriter(TopologyProtoBytes& out) : out_(out) {}
  void byte(uint8_t value) {
    if (out_.size < kMaxTopologyProtoBytes) out_.data[out_.size] = value;
    ++out_.size;
  }
  void varint(uint64_t value) {
    while (value >= 0x80) {
      byte(static_cast<uint8_t>(value | 0x80));
      value >>= 7;
    }
    byte(static_cast<uint8_t>(value));
  }
  void tag(uint32_t field, WireType type) { varint(uint64_t{field} << 3 | type); }
  // int32 as protobuf writes it: the varint of its 64-bit sign extension.
  void int32(int32_t value) { varint(static_cast<uint64_t>(int64_t{value})); }

 private:
  TopologyProtoBytes& out_;
};

size_t varint_size(uint64_t value) {
  size_t size = 1;
  for (; value >= 0x80; value >>= 7) ++size;
  return size;
}

void write_packed(WireWriter& writer, uint32_t field, Span<const int32_t> values) {
  if (values.empty()) return;
  size_t payload = 0;
  for (int32_t value : values) payload += varint_size(static_cast<uint64_t>(int64_t{value}));
  writer.tag(field, kLengthDelimited);
  writer.varint(payload);
  for (int32_t value : values) writer.int32(value);
}

void write_scalar(WireWriter& writer, uint32_t field, int32_t value) {
  if (value == 0) return;
  writer.tag(field, kVarint);
  writer.int32(value);
}

}  // namespace

Result<TopologyProtoFields> parse_topology_proto(Span<const uint8_t> serialized) {
  TopologyProtoFields fields;
  WireReader reader(serialized);
  while (!reader.done()) {
    const uint64_t key = RT_TRY(reader.varint());
    const uint64_t field = key >> 3;
    if (field == 0 || field > 0x1fffffff) return decode_error();
    RT_RETURN_IF_ERROR(read_field(reader, static_cast<uint32_t>(field), static_cast<WireType>(key & 7), fields));
  }
  return fields;
}

TopologyProtoBytes serialize_topology_proto(Span<const int32_t> mesh_shape, int32_t num_tasks,
                                            int32_t num_tpu_devices_per_task, Span<const int32_t> device_coordinates) {
  TopologyProtoBytes bytes;
  WireWriter writer(bytes);
  write_packed(writer, kMeshShape, mesh_shape);
  write_scalar(writer, kNumTasks, num_tasks);
  write_scalar(writer, kNumTpuDevicesPerTask, num_tpu_devices_per_task);
  write_packed(writer, kDeviceCoordinates, device_coordinates);
  if (bytes.size > kMaxTopologyProtoBytes) bytes.size = kMaxTopologyProtoBytes;  // not for a Topology's values
  return bytes;
}

}  // namespace rt::tpu
