// The engine behind every message encoder and parser (message.hpp): each described struct gets a
// visit_fields() from its field list, and three visitors walk those fields: FieldWriter (encode),
// FieldReader (parse untrusted bytes) and FieldSizer (the bytes around a chunk's data). A wire type
// is a tag (field::u8, field::str16, ...) with one overload per visitor, so adding a field to a
// message is one entry in its list, and encode, parse, size and the fuzzers' seeds follow.
//
// Parsing reads every field through the sticky WireReader (a truncated payload reads zeros and is
// reported once, at the end); conversions that can fail (a status or dtype code, a rank, a chunk)
// are checked only on bytes that were really there. Included by message.cpp and the tests only.
#pragma once
#include "message.hpp"

namespace rt::link {

namespace field {
struct u8 {};
struct u16 {};
struct u32 {};
struct u64 {};
struct u16x4 {};
struct role {};
struct char8 {};
struct status {};
struct str8 {};
struct str16 {};
struct rest {};
struct dtype {};
struct shape {};
struct chunk {};
struct chunk_if_tensors {};
}  // namespace field

// visit_fields(message, visitor) for each described struct, const or not: the visitor is called as
// visitor(field::<wire type>{}, message.<member>, "<member>", message) in wire order.
#define RT_LINK_VISIT_FIELD(wire, member) RT_RETURN_IF_ERROR(visitor(field::wire{}, message.member, #member, message));
#define RT_LINK_DESCRIBE(Message, title, FIELDS)                                        \
  template <typename M, typename Visitor>                                               \
    requires is_same_v<remove_cv_t<M>, Message>                                         \
  Status visit_fields(M& message, Visitor& visitor) {                                   \
    FIELDS(RT_LINK_VISIT_FIELD)                                                         \
    return Status::ok();                                                                \
  }                                                                                     \
  constexpr const char* message_title(const Message*) { return title; }
RT_LINK_MESSAGES(RT_LINK_DESCRIBE)
#undef RT_LINK_DESCRIBE
#undef RT_LINK_VISIT_FIELD

template <typename Message>
constexpr const char* message_title() {
  return message_title(static_cast<const Message*>(nullptr));
}

// One declaration per described struct: its validate rule (message.cpp), given the frame's kind.
#define RT_LINK_DECLARE_VALIDATE(Message, title, FIELDS) Status validate_message(const Message& message, MessageKind kind);
RT_LINK_MESSAGES(RT_LINK_DECLARE_VALIDATE)
#undef RT_LINK_DECLARE_VALIDATE

class FieldWriter {
 public:
  FieldWriter(WireWriter& writer, const char* title) : writer_(writer), title_(title) {}
  template <typename M> Status operator()(field::u8, uint8_t v, const char*, const M&) { return integer(v, 1); }
  template <typename M> Status operator()(field::u16, uint16_t v, const char*, const M&) { return integer(v, 2); }
  template <typename M> Status operator()(field::u32, uint32_t v, const char*, const M&) { return integer(v, 4); }
  template <typename M> Status operator()(field::u64, uint64_t v, const char*, const M&) { return integer(v, 8); }
  template <typename M> Status operator()(field::u16x4, const uint16_t (&v)[4], const char*, const M&) {
    for (uint16_t entry : v) put(entry, 2);
    return Status::ok();
  }
  template <typename M> Status operator()(field::role, PeerRole v, const char*, const M&) {
    return integer(static_cast<uint8_t>(v), 1);
  }
  template <typename M> Status operator()(field::char8, char v, const char*, const M&) {
    return integer(static_cast<uint8_t>(v), 1);
  }
  template <typename M> Status operator()(field::status, StatusCode v, const char*, const M&) {
    return integer(status_wire_code(v), 1);
  }
  template <typename M> Status operator()(field::str8, StringView v, const char* member, const M&) {
    return text(v, member, 1);
  }
  template <typename M> Status operator()(field::str16, StringView v, const char* member, const M&) {
    return text(v, member, 2);
  }
  template <typename M> Status operator()(field::rest, StringView v, const char* member, const M&) {
    return text(v, member, 0);
  }
  template <typename M> Status operator()(field::dtype, DType v, const char*, const M&) { return write_dtype(v); }
  template <typename M> Status operator()(field::shape, const Shape& v, const char*, const M&) { return write_shape(v); }
  template <typename M> Status operator()(field::chunk, const TensorChunk& v, const char*, const M&) {
    return write_tensor_chunk(v, writer_);
  }
  template <typename M> Status operator()(field::chunk_if_tensors, const TensorChunk& v, const char*, const M& message) {
    return message.tensor_count > 0 ? write_tensor_chunk(v, writer_) : Status::ok();
  }

 private:
  Status integer(uint64_t value, unsigned bytes) {
    put(value, bytes);
    return Status::ok();
  }
  void put(uint64_t value, unsigned bytes);
  // A text with a length prefix of `prefix_bytes` (0: none, it runs to the end of the payload).
  Status text(StringView text, const char* member, unsigned prefix_bytes);
  Status write_dtype(DType dtype);
  Status write_shape(const Shape& shape);

  WireWriter& writer_;
  const char* title_;
};

class FieldReader {
 public:
  explicit FieldReader(WireReader& reader) : reader_(reader) {}
  template <typename M> Status operator()(field::u8, uint8_t& v, const char*, M&) { return got(v = reader_.u8()); }
  template <typename M> Status operator()(field::u16, uint16_t& v, const char*, M&) { return got(v = reader_.u16()); }
  template <typename M> Status operator()(field::u32, uint32_t& v, const char*, M&) { return got(v = reader_.u32()); }
  template <typename M> Status operator()(field::u64, uint64_t& v, const char*, M&) { return got(v = reader_.u64()); }
  template <typename M> Status operator()(field::u16x4, uint16_t (&v)[4], const char*, M&) {
    for (uint16_t& entry : v) entry = reader_.u16();
    return Status::ok();
  }
  template <typename M> Status operator()(field::role, PeerRole& v, const char*, M&) {
    return got(v = static_cast<PeerRole>(reader_.u8()));
  }
  template <typename M> Status operator()(field::char8, char& v, const char*, M&) {
    return got(v = static_cast<char>(reader_.u8()));
  }
  template <typename M> Status operator()(field::status, StatusCode& v, const char*, M&) { return read_status(v); }
  template <typename M> Status operator()(field::str8, StringView& v, const char*, M&) {
    return got(v = reader_.text(reader_.u8()));
  }
  template <typename M> Status operator()(field::str16, StringView& v, const char*, M&) {
    return got(v = reader_.text(reader_.u16()));
  }
  template <typename M> Status operator()(field::rest, StringView& v, const char*, M&) { return read_rest(v); }
  template <typename M> Status operator()(field::dtype, DType& v, const char*, M&) { return read_dtype(v); }
  template <typename M> Status operator()(field::shape, Shape& v, const char*, M&) { return read_shape(v); }
  template <typename M> Status operator()(field::chunk, TensorChunk& v, const char*, M&) { return read_chunk(v); }
  template <typename M> Status operator()(field::chunk_if_tensors, TensorChunk& v, const char*, M& message) {
    return message.tensor_count > 0 ? read_chunk(v) : Status::ok();
  }

 private:
  template <typename T> static Status got(const T&) { return Status::ok(); }
  Status read_status(StatusCode& code);
  Status read_rest(StringView& text);
  Status read_dtype(DType& dtype);
  Status read_shape(Shape& shape);
  Status read_chunk(TensorChunk& chunk);

  WireReader& reader_;
};

// The bytes a message takes on the wire apart from its chunk's data (a chunk's header counts even
// where tensor_count is 0: the size a message with a chunk would have).
class FieldSizer {
 public:
  template <typename M> Status operator()(field::u8, uint8_t, const char*, const M&) { return add(1); }
  template <typename M> Status operator()(field::u16, uint16_t, const char*, const M&) { return add(2); }
  template <typename M> Status operator()(field::u32, uint32_t, const char*, const M&) { return add(4); }
  template <typename M> Status operator()(field::u64, uint64_t, const char*, const M&) { return add(8); }
  template <typename M> Status operator()(field::u16x4, const uint16_t (&)[4], const char*, const M&) { return add(8); }
  template <typename M> Status operator()(field::role, PeerRole, const char*, const M&) { return add(1); }
  template <typename M> Status operator()(field::char8, char, const char*, const M&) { return add(1); }
  template <typename M> Status operator()(field::status, StatusCode, const char*, const M&) { return add(1); }
  template <typename M> Status operator()(field::str8, StringView v, const char*, const M&) { return add(1 + v.size()); }
  template <typename M> Status operator()(field::str16, StringView v, const char*, const M&) { return add(2 + v.size()); }
  template <typename M> Status operator()(field::rest, StringView v, const char*, const M&) { return add(v.size()); }
  template <typename M> Status operator()(field::dtype, DType, const char*, const M&) { return add(1); }
  template <typename M> Status operator()(field::shape, const Shape& v, const char*, const M&) { return add(1 + 8 * v.rank); }
  template <typename M> Status operator()(field::chunk, const TensorChunk& v, const char*, const M&) {
    return add(tensor_chunk_header_size(v.shape.rank));
  }
  template <typename M> Status operator()(field::chunk_if_tensors, const TensorChunk& v, const char*, const M&) {
    return add(tensor_chunk_header_size(v.shape.rank));
  }
  size_t size() const { return size_; }

 private:
  Status add(size_t bytes) {
    size_ += bytes;
    return Status::ok();
  }
  size_t size_ = 0;
};

Result<size_t> finish_encode(const WireWriter& writer, const char* title, size_t capacity);
Status finish_parse(const WireReader& reader, const char* title);

// Encodes a described message: validate (message.cpp's rule for its type, given the frame's kind),
// then its fields in order.
template <typename Message>
Result<size_t> encode_message(const Message& message, MessageKind kind, Span<uint8_t> out) {
  RT_RETURN_IF_ERROR(validate_message(message, kind));
  WireWriter writer(out);
  FieldWriter fields(writer, message_title<Message>());
  RT_RETURN_IF_ERROR(visit_fields(message, fields));
  return finish_encode(writer, message_title<Message>(), out.size());
}

// Parses a described message from untrusted bytes: its fields in order, nothing left over, then
// the validate rule.
template <typename Message>
Result<Message> parse_message(Span<const uint8_t> payload, MessageKind kind) {
  WireReader reader(payload);
  Message message;
  FieldReader fields(reader);
  RT_RETURN_IF_ERROR(visit_fields(message, fields));
  RT_RETURN_IF_ERROR(finish_parse(reader, message_title<Message>()));
  RT_RETURN_IF_ERROR(validate_message(message, kind));
  return message;
}

// Payload bytes left for a chunk's data in a message like `message` (its chunk's data ignored).
template <typename Message>
size_t chunk_room(const Message& message, size_t max_payload) {
  FieldSizer sizer;
  (void)visit_fields(message, sizer);
  return sizer.size() < max_payload ? max_payload - sizer.size() : 0;
}

}  // namespace rt::link
