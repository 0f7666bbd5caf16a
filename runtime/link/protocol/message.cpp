// Message payload encoders and validating parsers (layouts in message.hpp). Every message has one
// validate_*() that both the encoder (before writing) and the parser (after reading) apply, so a
// peer can only send what the other side accepts.
#include "message.hpp"

namespace rt::link {
namespace {

struct WireStatus {
  StatusCode code;
  uint8_t wire;  // absl::StatusCode / tensorflow::error::Code
};
constexpr WireStatus kWireStatuses[] = {
    {StatusCode::kOk, 0},        {StatusCode::kInvalidArgument, 3},   {StatusCode::kDeadlineExceeded, 4},
    {StatusCode::kNotFound, 5},  {StatusCode::kResourceExhausted, 8}, {StatusCode::kFailedPrecondition, 9},
    {StatusCode::kAborted, 10},  {StatusCode::kOutOfRange, 11},       {StatusCode::kUnimplemented, 12},
    {StatusCode::kInternal, 13}, {StatusCode::kUnavailable, 14},
};

constexpr size_t kStr8Max = 0xFF;
constexpr size_t kStr16Max = 0xFFFF;

// Header bytes before the chunk in queue data and call messages.
constexpr size_t kQueueDataFixed = 2 + 1 + 1;
constexpr size_t kCallFixed = 4 + 2 + 1 + 1 + 1 + 2;

Result<size_t> finish_encode(const WireWriter& writer, const char* what, size_t capacity) {
  if (writer.failed()) return invalid_argument("{} payload does not fit in the {} byte output", what, capacity);
  if (writer.size() > kMaxRecordPayload)
    return invalid_argument("{} payload of {} bytes exceeds the link maximum of {}", what, writer.size(), kMaxRecordPayload);
  return writer.size();
}

Status finish_parse(const WireReader& reader, const char* what) {
  if (reader.failed()) return invalid_argument("{} payload is truncated", what);
  if (reader.remaining() != 0)
    return invalid_argument("{} payload has {} unexpected trailing bytes", what, reader.remaining());
  return Status::ok();
}

Status check_length(StringView text, size_t limit, const char* what) {
  if (text.size() > limit)
    return invalid_argument("{} of {} bytes is longer than the {} bytes the link allows", what, text.size(), limit);
  return Status::ok();
}

void write_str8(WireWriter& writer, StringView text) {
  writer.u8(static_cast<uint8_t>(text.size()));
  writer.text(text);
}

void write_str16(WireWriter& writer, StringView text) {
  writer.u16(static_cast<uint16_t>(text.size()));
  writer.text(text);
}

StringView read_str8(WireReader& reader) { return reader.text(reader.u8()); }
StringView read_str16(WireReader& reader) { return reader.text(reader.u16()); }

bool is_one_of(char c, StringView allowed) { return allowed.find(c) != StringView::npos; }

bool is_call_kind(MessageKind kind) {
  return kind == MessageKind::kHostCallRequest || kind == MessageKind::kHostCallReply || kind == MessageKind::kRun ||
         kind == MessageKind::kResult;
}

bool is_request_kind(MessageKind kind) { return kind == MessageKind::kHostCallRequest || kind == MessageKind::kRun; }

// ---------------------------------------------------------------- hello

Status validate_hello(const Hello& hello) {
  if (hello.protocol_version != kProtocolVersion)
    return invalid_argument("peer speaks host-link protocol version {}, this side speaks {}", hello.protocol_version,
                            kProtocolVersion);
  if (hello.role != PeerRole::kHost && hello.role != PeerRole::kBoard)
    return invalid_argument("hello names role {}, expected 0 (host) or 1 (board)", static_cast<unsigned>(hello.role));
  if (hello.max_payload < kMinAdvertisedPayload)
    return invalid_argument("hello advertises a maximum payload of {} bytes, at least {} are required",
                            hello.max_payload, kMinAdvertisedPayload);
  RT_RETURN_IF_ERROR(check_length(hello.board, kStr8Max, "hello board name"));
  RT_RETURN_IF_ERROR(check_length(hello.app, kStr8Max, "hello app name"));
  const Span<const uint16_t> mesh(hello.mesh_shape, 4);
  if (hello.role == PeerRole::kHost) {
    if (hello.core_count != 0 || mesh[0] || mesh[1] || mesh[2] || mesh[3])
      return invalid_argument("a host hello has core_count 0 and mesh_shape [0, 0, 0, 0], got {} and {}",
                              hello.core_count, mesh);
    return Status::ok();
  }
  uint64_t product = 1;
  for (uint16_t size : mesh) product *= size;
  if (hello.core_count == 0 || product != hello.core_count)
    return invalid_argument("board hello: mesh_shape {} must be 4 positive entries whose product is core_count {}",
                            mesh, hello.core_count);
  return Status::ok();
}

// ---------------------------------------------------------------- log

Status validate_log(const LogMessage& log) {
  if (!is_one_of(log.level, "DIWE"))
    return invalid_argument("log level byte {} is none of 'D' 'I' 'W' 'E'",
                            static_cast<unsigned>(static_cast<uint8_t>(log.level)));
  return check_length(log.text, kMaxPayload - 1, "log text");
}

// ---------------------------------------------------------------- queue data

Status validate_element(uint8_t count, uint8_t index) {
  if (count == 0) return invalid_argument("queue data names a tuple of 0 elements");
  if (index >= count) return invalid_argument("queue data element index {} is outside a tuple of {}", index, count);
  return Status::ok();
}

// ---------------------------------------------------------------- calls

Status validate_call(MessageKind kind, const CallMessage& call) {
  if (!is_call_kind(kind))
    return invalid_argument("{} is not a call kind (host-call request/reply, run, result)", message_kind_name(kind));
  RT_RETURN_IF_ERROR(check_length(call.text, kStr16Max, "call text"));
  if (is_request_kind(kind)) {
    if (call.status != StatusCode::kOk)
      return invalid_argument("a {} message carries status 0, got {}", message_kind_name(kind),
                              status_code_name(call.status));
    if (call.text.empty())
      return invalid_argument("a {} message names its function or computation, the name is empty",
                              message_kind_name(kind));
  } else if (call.status == StatusCode::kOk) {
    if (!call.text.empty())
      return invalid_argument("a successful {} carries no error message", message_kind_name(kind));
  } else if (call.tensor_count != 0) {
    return invalid_argument("a failed {} carries no tensors, it has {}", message_kind_name(kind), call.tensor_count);
  }
  if (call.tensor_count == 0) {
    if (call.tensor_index != 0)
      return invalid_argument("{} without tensors has tensor index {}", message_kind_name(kind), call.tensor_index);
  } else if (call.tensor_index >= call.tensor_count) {
    return invalid_argument("{} tensor index {} is outside its {} tensors", message_kind_name(kind), call.tensor_index,
                            call.tensor_count);
  }
  return Status::ok();
}

// ---------------------------------------------------------------- errors and traces

Status validate_error(const ErrorMessage& error) {
  if (error.code == StatusCode::kOk) return invalid_argument("an error message carries a non-OK status");
  return check_length(error.message, kStr16Max, "error message");
}

Status validate_trace_event(const TraceEvent& event) {
  if (!is_one_of(event.phase, "BEXiC"))
    return invalid_argument("trace phase byte {} is none of 'B' 'E' 'X' 'i' 'C'",
                            static_cast<unsigned>(static_cast<uint8_t>(event.phase)));
  return check_length(event.name, kStr8Max, "trace event name");
}

}  // namespace

uint8_t status_wire_code(StatusCode code) {
  for (const WireStatus& entry : kWireStatuses)
    if (entry.code == code) return entry.wire;
  return 2;  // UNKNOWN
}

Result<StatusCode> status_from_wire_code(uint8_t code) {
  for (const WireStatus& entry : kWireStatuses)
    if (entry.wire == code) return entry.code;
  return invalid_argument("status code {} is not one the link knows", code);
}

Result<size_t> encode_hello(const Hello& hello, Span<uint8_t> out) {
  RT_RETURN_IF_ERROR(validate_hello(hello));
  WireWriter writer(out);
  writer.u8(hello.protocol_version);
  writer.u8(static_cast<uint8_t>(hello.role));
  writer.u16(hello.core_count);
  writer.u16(hello.max_payload);
  for (uint16_t size : hello.mesh_shape) writer.u16(size);
  write_str8(writer, hello.board);
  write_str8(writer, hello.app);
  return finish_encode(writer, "hello", out.size());
}

Result<Hello> parse_hello(Span<const uint8_t> payload) {
  WireReader reader(payload);
  Hello hello;
  hello.protocol_version = reader.u8();
  if (!reader.failed() && hello.protocol_version != kProtocolVersion) return validate_hello(hello);
  hello.role = static_cast<PeerRole>(reader.u8());
  hello.core_count = reader.u16();
  hello.max_payload = reader.u16();
  for (uint16_t& size : hello.mesh_shape) size = reader.u16();
  hello.board = read_str8(reader);
  hello.app = read_str8(reader);
  RT_RETURN_IF_ERROR(finish_parse(reader, "hello"));
  RT_RETURN_IF_ERROR(validate_hello(hello));
  return hello;
}

Result<size_t> encode_log(const LogMessage& log, Span<uint8_t> out) {
  RT_RETURN_IF_ERROR(validate_log(log));
  WireWriter writer(out);
  writer.u8(static_cast<uint8_t>(log.level));
  writer.text(log.text);
  return finish_encode(writer, "log", out.size());
}

Result<LogMessage> parse_log(Span<const uint8_t> payload) {
  WireReader reader(payload);
  LogMessage log;
  log.level = static_cast<char>(reader.u8());
  const Span<const uint8_t> text = reader.rest();
  log.text = StringView(reinterpret_cast<const char*>(text.data()), text.size());
  RT_RETURN_IF_ERROR(finish_parse(reader, "log"));
  RT_RETURN_IF_ERROR(validate_log(log));
  return log;
}

Result<size_t> encode_queue_data(const QueueData& data, Span<uint8_t> out) {
  RT_RETURN_IF_ERROR(validate_element(data.element_count, data.element_index));
  WireWriter writer(out);
  writer.u16(data.queue);
  writer.u8(data.element_count);
  writer.u8(data.element_index);
  RT_RETURN_IF_ERROR(write_tensor_chunk(data.chunk, writer));
  return finish_encode(writer, "queue data", out.size());
}

Result<QueueData> parse_queue_data(Span<const uint8_t> payload) {
  WireReader reader(payload);
  QueueData data;
  data.queue = reader.u16();
  data.element_count = reader.u8();
  data.element_index = reader.u8();
  if (reader.failed()) return invalid_argument("queue data payload of {} bytes is truncated", payload.size());
  RT_RETURN_IF_ERROR(validate_element(data.element_count, data.element_index));
  Result<TensorChunk> chunk = read_tensor_chunk(reader);
  if (!chunk) return chunk.status();
  data.chunk = *chunk;
  RT_RETURN_IF_ERROR(finish_parse(reader, "queue data"));
  return data;
}

size_t max_chunk_data(const QueueData& data, size_t max_payload) {
  return max_payload - kQueueDataFixed - tensor_chunk_header_size(data.chunk.shape.rank);
}

Result<size_t> encode_infeed_credits(const InfeedCredits& credits, Span<uint8_t> out) {
  WireWriter writer(out);
  writer.u16(credits.queue);
  writer.u32(credits.granted_tuples);
  writer.u64(credits.granted_bytes);
  return finish_encode(writer, "infeed credits", out.size());
}

Result<InfeedCredits> parse_infeed_credits(Span<const uint8_t> payload) {
  WireReader reader(payload);
  InfeedCredits credits;
  credits.queue = reader.u16();
  credits.granted_tuples = reader.u32();
  credits.granted_bytes = reader.u64();
  RT_RETURN_IF_ERROR(finish_parse(reader, "infeed credits"));
  return credits;
}

Result<size_t> encode_call(MessageKind kind, const CallMessage& call, Span<uint8_t> out) {
  RT_RETURN_IF_ERROR(validate_call(kind, call));
  WireWriter writer(out);
  writer.u32(call.id);
  writer.u16(call.replica);
  writer.u8(status_wire_code(call.status));
  writer.u8(call.tensor_count);
  writer.u8(call.tensor_index);
  write_str16(writer, call.text);
  if (call.tensor_count > 0) RT_RETURN_IF_ERROR(write_tensor_chunk(call.chunk, writer));
  return finish_encode(writer, message_kind_name(kind), out.size());
}

Result<CallMessage> parse_call(MessageKind kind, Span<const uint8_t> payload) {
  WireReader reader(payload);
  CallMessage call;
  call.id = reader.u32();
  call.replica = reader.u16();
  const uint8_t status = reader.u8();
  call.tensor_count = reader.u8();
  call.tensor_index = reader.u8();
  call.text = read_str16(reader);
  if (reader.failed())
    return invalid_argument("{} payload of {} bytes is truncated", message_kind_name(kind), payload.size());
  Result<StatusCode> code = status_from_wire_code(status);
  if (!code) return code.status();
  call.status = *code;
  RT_RETURN_IF_ERROR(validate_call(kind, call));
  if (call.tensor_count > 0) {
    Result<TensorChunk> chunk = read_tensor_chunk(reader);
    if (!chunk) return chunk.status();
    call.chunk = *chunk;
  }
  RT_RETURN_IF_ERROR(finish_parse(reader, message_kind_name(kind)));
  return call;
}

namespace {

// The fields in-place messages share: which of a call's tensors (u8 count | u8 index) and its type
// (u8 dtype | u8 rank | u64 dims[rank]).
Status check_tensor_index(uint8_t count, uint8_t index, const char* what) {
  if (count == 0 || index >= count)
    return invalid_argument("{} {} of {}: the index must be below a non-zero count", what, index, count);
  return Status::ok();
}

Status write_tensor_type(WireWriter& writer, DType dtype, const Shape& shape) {
  const uint8_t code = dtype_wire_code(dtype);
  if (code == 0) return invalid_argument("tensor dtype {} has no link code", dtype);
  writer.u8(code);
  writer.u8(shape.rank);
  for (unsigned d = 0; d < shape.rank; ++d) writer.u64(static_cast<uint64_t>(shape.dims[d]));
  return Status::ok();
}

Status read_tensor_type(WireReader& reader, const char* what, DType& dtype, Shape& shape) {
  const uint8_t code = reader.u8();
  const uint8_t rank = reader.u8();
  if (reader.failed()) return invalid_argument("{} payload is truncated", what);
  Result<DType> parsed = dtype_from_wire_code(code);
  if (!parsed) return parsed.status();
  if (rank > kMaxRank) return invalid_argument("{} has rank {}, the maximum is {}", what, rank, kMaxRank);
  int64_t dims[kMaxRank];
  for (unsigned d = 0; d < rank; ++d) dims[d] = static_cast<int64_t>(reader.u64());
  if (reader.failed()) return invalid_argument("{} payload is truncated", what);
  Result<Shape> made = Shape::make(Span<const int64_t>(dims, rank));
  if (!made) return made.status();
  dtype = *parsed;
  shape = *made;
  return Status::ok();
}

}  // namespace

Result<size_t> encode_in_place_result(const InPlaceResult& result, Span<uint8_t> out) {
  RT_RETURN_IF_ERROR(check_tensor_index(result.tensor_count, result.tensor_index, "in-place result"));
  WireWriter writer(out);
  writer.u32(result.id);
  writer.u8(result.tensor_count);
  writer.u8(result.tensor_index);
  RT_RETURN_IF_ERROR(write_tensor_type(writer, result.dtype, result.shape));
  return finish_encode(writer, "host-call-reply-in-place", out.size());
}

Result<InPlaceResult> parse_in_place_result(Span<const uint8_t> payload) {
  WireReader reader(payload);
  InPlaceResult result;
  result.id = reader.u32();
  result.tensor_count = reader.u8();
  result.tensor_index = reader.u8();
  RT_RETURN_IF_ERROR(read_tensor_type(reader, "host-call-reply-in-place", result.dtype, result.shape));
  RT_RETURN_IF_ERROR(check_tensor_index(result.tensor_count, result.tensor_index, "in-place result"));
  RT_RETURN_IF_ERROR(finish_parse(reader, "host-call-reply-in-place"));
  return result;
}

Result<size_t> encode_in_place_argument(const InPlaceArgument& argument, Span<uint8_t> out) {
  RT_RETURN_IF_ERROR(check_tensor_index(argument.tensor_count, argument.tensor_index, "in-place argument"));
  if (argument.text.empty()) return invalid_argument("an in-place argument's call needs a function name");
  WireWriter writer(out);
  writer.u32(argument.id);
  writer.u16(argument.replica);
  writer.u8(argument.tensor_count);
  writer.u8(argument.tensor_index);
  write_str16(writer, argument.text);
  RT_RETURN_IF_ERROR(write_tensor_type(writer, argument.dtype, argument.shape));
  writer.u64(argument.address);
  return finish_encode(writer, "host-call-argument-in-place", out.size());
}

Result<InPlaceArgument> parse_in_place_argument(Span<const uint8_t> payload) {
  WireReader reader(payload);
  InPlaceArgument argument;
  argument.id = reader.u32();
  argument.replica = reader.u16();
  argument.tensor_count = reader.u8();
  argument.tensor_index = reader.u8();
  argument.text = read_str16(reader);
  RT_RETURN_IF_ERROR(read_tensor_type(reader, "host-call-argument-in-place", argument.dtype, argument.shape));
  argument.address = reader.u64();
  RT_RETURN_IF_ERROR(check_tensor_index(argument.tensor_count, argument.tensor_index, "in-place argument"));
  if (argument.text.empty()) return invalid_argument("an in-place argument's call needs a function name");
  RT_RETURN_IF_ERROR(finish_parse(reader, "host-call-argument-in-place"));
  return argument;
}

Result<size_t> encode_infeed_in_place(const InfeedInPlace& message, Span<uint8_t> out) {
  WireWriter writer(out);
  writer.u16(message.queue);
  writer.u64(message.tuple);
  return finish_encode(writer, "infeed-in-place", out.size());
}

Result<InfeedInPlace> parse_infeed_in_place(Span<const uint8_t> payload) {
  WireReader reader(payload);
  InfeedInPlace message;
  message.queue = reader.u16();
  message.tuple = reader.u64();
  RT_RETURN_IF_ERROR(finish_parse(reader, "infeed-in-place"));
  return message;
}

size_t max_chunk_data(const CallMessage& call, size_t max_payload) {
  const size_t fixed = kCallFixed + call.text.size() + tensor_chunk_header_size(call.chunk.shape.rank);
  return fixed < max_payload ? max_payload - fixed : 0;
}

Status call_status(const CallMessage& call) {
  if (call.status == StatusCode::kOk) return Status::ok();
  return Status::error(call.status, "{}", call.text);
}

Result<size_t> encode_error(const ErrorMessage& error, Span<uint8_t> out) {
  RT_RETURN_IF_ERROR(validate_error(error));
  WireWriter writer(out);
  writer.u8(status_wire_code(error.code));
  writer.u8(error.related_kind);
  writer.u32(error.related_sequence);
  write_str16(writer, error.message);
  return finish_encode(writer, "error", out.size());
}

Result<ErrorMessage> parse_error(Span<const uint8_t> payload) {
  WireReader reader(payload);
  const uint8_t status = reader.u8();
  ErrorMessage error;
  error.related_kind = reader.u8();
  error.related_sequence = reader.u32();
  error.message = read_str16(reader);
  RT_RETURN_IF_ERROR(finish_parse(reader, "error"));
  Result<StatusCode> code = status_from_wire_code(status);
  if (!code) return code.status();
  error.code = *code;
  RT_RETURN_IF_ERROR(validate_error(error));
  return error;
}

Result<size_t> encode_trace(Span<const TraceEvent> events, Span<uint8_t> out) {
  if (events.size() > 0xFFFF)
    return invalid_argument("a trace batch holds at most 65535 events, got {}", events.size());
  WireWriter writer(out);
  writer.u16(static_cast<uint16_t>(events.size()));
  for (const TraceEvent& event : events) {
    RT_RETURN_IF_ERROR(validate_trace_event(event));
    writer.u64(event.timestamp_ns);
    writer.u64(event.arg);
    writer.u16(event.core);
    writer.u8(static_cast<uint8_t>(event.phase));
    write_str8(writer, event.name);
  }
  return finish_encode(writer, "trace", out.size());
}

Result<size_t> parse_trace(Span<const uint8_t> payload, Span<TraceEvent> events) {
  WireReader reader(payload);
  const uint16_t count = reader.u16();
  if (!reader.failed() && count > events.size())
    return invalid_argument("trace batch holds {} events, there is room for {}", count, events.size());
  for (size_t i = 0; i < count && !reader.failed(); ++i) {
    TraceEvent& event = events[i];
    event.timestamp_ns = reader.u64();
    event.arg = reader.u64();
    event.core = reader.u16();
    event.phase = static_cast<char>(reader.u8());
    event.name = read_str8(reader);
    if (!reader.failed()) RT_RETURN_IF_ERROR(validate_trace_event(event));
  }
  RT_RETURN_IF_ERROR(finish_parse(reader, "trace"));
  return size_t{count};
}

}  // namespace rt::link
