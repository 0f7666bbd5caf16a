// How each wire type of message_codec.hpp is written and read (the out-of-line parts of the field
// visitors), and the checks that end every encode and parse.
#include "message_codec.hpp"

namespace rt::link {

void FieldWriter::put(uint64_t value, unsigned bytes) {
  switch (bytes) {
    case 1: writer_.u8(static_cast<uint8_t>(value)); break;
    case 2: writer_.u16(static_cast<uint16_t>(value)); break;
    case 4: writer_.u32(static_cast<uint32_t>(value)); break;
    default: writer_.u64(value); break;
  }
}

Status FieldWriter::text(StringView text, const char* member, unsigned prefix_bytes) {
  const size_t limit = prefix_bytes == 1 ? 0xFF : 0xFFFF;
  if (prefix_bytes != 0 && text.size() > limit)
    return invalid_argument("{} {} of {} bytes is longer than the {} bytes the link allows", title_, member, text.size(),
                            limit);
  if (prefix_bytes != 0) put(text.size(), prefix_bytes);
  writer_.text(text);
  return Status::ok();
}

Status FieldWriter::write_dtype(DType dtype) {
  const uint8_t code = dtype_wire_code(dtype);
  if (code == 0) return invalid_argument("tensor dtype {} has no link code", dtype);
  writer_.u8(code);
  return Status::ok();
}

Status FieldWriter::write_shape(const Shape& shape) {
  writer_.u8(shape.rank);
  for (unsigned d = 0; d < shape.rank; ++d) writer_.u64(static_cast<uint64_t>(shape.dims[d]));
  return Status::ok();
}

Status FieldReader::read_status(StatusCode& code) {
  const uint8_t wire = reader_.u8();
  if (reader_.failed()) return Status::ok();  // reported as truncated at the end
  Result<StatusCode> parsed = status_from_wire_code(wire);
  if (!parsed) return parsed.status();
  code = *parsed;
  return Status::ok();
}

Status FieldReader::read_rest(StringView& text) {
  const Span<const uint8_t> bytes = reader_.rest();
  text = StringView(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return Status::ok();
}

Status FieldReader::read_dtype(DType& dtype) {
  const uint8_t code = reader_.u8();
  if (reader_.failed()) return Status::ok();
  Result<DType> parsed = dtype_from_wire_code(code);
  if (!parsed) return parsed.status();
  dtype = *parsed;
  return Status::ok();
}

Status FieldReader::read_shape(Shape& shape) {
  const uint8_t rank = reader_.u8();
  if (reader_.failed()) return Status::ok();
  if (rank > kMaxRank) return invalid_argument("a tensor type has rank {}, the maximum is {}", rank, kMaxRank);
  int64_t dims[kMaxRank];
  for (unsigned d = 0; d < rank; ++d) dims[d] = static_cast<int64_t>(reader_.u64());
  if (reader_.failed()) return Status::ok();
  Result<Shape> made = Shape::make(Span<const int64_t>(dims, rank));
  if (!made) return made.status();
  shape = *made;
  return Status::ok();
}

Status FieldReader::read_chunk(TensorChunk& chunk) {
  if (reader_.failed()) return Status::ok();
  Result<TensorChunk> read = read_tensor_chunk(reader_);
  if (!read) return read.status();
  chunk = *read;
  return Status::ok();
}

Result<size_t> finish_encode(const WireWriter& writer, const char* title, size_t capacity) {
  if (writer.failed()) return invalid_argument("{} payload does not fit in the {} byte output", title, capacity);
  if (writer.size() > kMaxRecordPayload)
    return invalid_argument("{} payload of {} bytes exceeds the link maximum of {}", title, writer.size(), kMaxRecordPayload);
  return writer.size();
}

Status finish_parse(const WireReader& reader, const char* title) {
  if (reader.failed()) return invalid_argument("{} payload is truncated", title);
  if (reader.remaining() != 0)
    return invalid_argument("{} payload has {} unexpected trailing bytes", title, reader.remaining());
  return Status::ok();
}

}  // namespace rt::link
