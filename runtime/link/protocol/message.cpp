// Message payloads (message.hpp): what the field lists cannot say, as one validate rule per message
// that both the encoder (before writing) and the parser (after reading) apply, so a peer can only
// send what the other side accepts; and the named encoders and parsers over the described fields
// (message_codec.hpp).
#include "message.hpp"

#include "message_codec.hpp"

namespace rt::link {
namespace {

struct WireStatus {
  StatusCode code;
  uint8_t wire;  // absl::StatusCode / tensorflow::error::Code
};
constexpr WireStatus kWireStatuses[] = {
    {StatusCode::kOk, 0},
    {StatusCode::kCancelled, 1},
    {StatusCode::kInvalidArgument, 3},
    {StatusCode::kDeadlineExceeded, 4},
    {StatusCode::kNotFound, 5},
    {StatusCode::kResourceExhausted, 8},
    {StatusCode::kFailedPrecondition, 9},
    {StatusCode::kAborted, 10},
    {StatusCode::kOutOfRange, 11},
    {StatusCode::kUnimplemented, 12},
    {StatusCode::kInternal, 13},
    {StatusCode::kUnavailable, 14},
};

bool is_one_of(char c, StringView allowed) { return allowed.find(c) != StringView::npos; }

bool is_call_kind(MessageKind kind) {
  return kind == MessageKind::kHostCallRequest || kind == MessageKind::kHostCallReply || kind == MessageKind::kRun ||
         kind == MessageKind::kResult;
}

bool is_request_kind(MessageKind kind) { return kind == MessageKind::kHostCallRequest || kind == MessageKind::kRun; }

Status check_protocol_version(uint8_t version) {
  if (version != kProtocolVersion)
    return invalid_argument("peer speaks host-link protocol version {}, this side speaks {}", version, kProtocolVersion);
  return Status::ok();
}

Status check_element(uint8_t count, uint8_t index) {
  if (count == 0) return invalid_argument("queue data names a tuple of 0 elements");
  if (index >= count) return invalid_argument("queue data element index {} is outside a tuple of {}", index, count);
  return Status::ok();
}

// In-place messages name one of a call's tensors: the index must be below a non-zero count.
Status check_tensor_index(uint8_t count, uint8_t index, const char* what) {
  if (count == 0 || index >= count)
    return invalid_argument("{} {} of {}: the index must be below a non-zero count", what, index, count);
  return Status::ok();
}

Status check_call_text(MessageKind kind, const CallMessage& call) {
  if (is_request_kind(kind)) {
    if (call.status != StatusCode::kOk)
      return invalid_argument("a {} message carries status 0, got {}", message_kind_name(kind),
                              status_code_name(call.status));
    if (call.text.empty())
      return invalid_argument("a {} message names its function or computation, the name is empty",
                              message_kind_name(kind));
  } else if (call.status == StatusCode::kOk) {
    if (!call.text.empty()) return invalid_argument("a successful {} carries no error message", message_kind_name(kind));
  } else if (call.tensor_count != 0) {
    return invalid_argument("a failed {} carries no tensors, it has {}", message_kind_name(kind), call.tensor_count);
  }
  return Status::ok();
}

Status check_call_index(MessageKind kind, const CallMessage& call) {
  if (call.tensor_count == 0) {
    if (call.tensor_index != 0)
      return invalid_argument("{} without tensors has tensor index {}", message_kind_name(kind), call.tensor_index);
  } else if (call.tensor_index >= call.tensor_count) {
    return invalid_argument("{} tensor index {} is outside its {} tensors", message_kind_name(kind), call.tensor_index,
                            call.tensor_count);
  }
  return Status::ok();
}

}  // namespace

// ---------------------------------------------------------------- validate rules

Status validate_message(const Hello& hello, MessageKind) {
  RT_RETURN_IF_ERROR(check_protocol_version(hello.protocol_version));
  if (hello.role != PeerRole::kHost && hello.role != PeerRole::kBoard)
    return invalid_argument("hello names role {}, expected 0 (host) or 1 (board)", static_cast<unsigned>(hello.role));
  if (hello.max_payload < kMinAdvertisedPayload)
    return invalid_argument("hello advertises a maximum payload of {} bytes, at least {} are required",
                            hello.max_payload, kMinAdvertisedPayload);
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

Status validate_message(const LogMessage& log, MessageKind) {
  if (!is_one_of(log.level, "DIWE"))
    return invalid_argument("log level byte {} is none of 'D' 'I' 'W' 'E'",
                            static_cast<unsigned>(static_cast<uint8_t>(log.level)));
  if (log.text.size() > kMaxPayload - 1)
    return invalid_argument("log text of {} bytes is longer than the {} bytes the link allows", log.text.size(),
                            kMaxPayload - 1);
  return Status::ok();
}

Status validate_message(const QueueData& data, MessageKind) { return check_element(data.element_count, data.element_index); }

Status validate_message(const InfeedCredits& credits, MessageKind) {
  if (credits.closed > 1) return invalid_argument("infeed credits' closed byte is {}, not 0 or 1", credits.closed);
  return Status::ok();
}

Status validate_message(const CallMessage& call, MessageKind kind) {
  if (!is_call_kind(kind))
    return invalid_argument("{} is not a call kind (host-call request/reply, run, result)", message_kind_name(kind));
  RT_RETURN_IF_ERROR(check_call_text(kind, call));
  return check_call_index(kind, call);
}

Status validate_message(const InPlaceResult& result, MessageKind) {
  return check_tensor_index(result.tensor_count, result.tensor_index, "in-place result");
}

Status validate_message(const InPlaceArgument& argument, MessageKind) {
  RT_RETURN_IF_ERROR(check_tensor_index(argument.tensor_count, argument.tensor_index, "in-place argument"));
  if (argument.text.empty()) return invalid_argument("an in-place argument's call needs a function name");
  return Status::ok();
}

Status validate_message(const InfeedInPlace&, MessageKind) { return Status::ok(); }
Status validate_message(const InfeedSpec& spec, MessageKind) { return check_element(spec.element_count, spec.element_index); }

Status validate_message(const PodInfo& pod, MessageKind) {
  if (pod.num_tasks == 0 || pod.num_tasks > kMaxPodTasks)
    return invalid_argument("a pod has 1 to {} boards, this one says {}", kMaxPodTasks, pod.num_tasks);
  if (pod.task >= pod.num_tasks)
    return invalid_argument("pod task {} is outside its {} tasks", pod.task, pod.num_tasks);
  return Status::ok();
}

Status validate_message(const ErrorMessage& error, MessageKind) {
  if (error.code == StatusCode::kOk) return invalid_argument("an error message carries a non-OK status");
  return Status::ok();
}

Status validate_message(const TraceEvent& event, MessageKind) {
  if (!is_one_of(event.phase, "BEXiC"))
    return invalid_argument("trace phase byte {} is none of 'B' 'E' 'X' 'i' 'C'",
                            static_cast<unsigned>(static_cast<uint8_t>(event.phase)));
  return Status::ok();
}

// ---------------------------------------------------------------- the named encoders and parsers

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

Result<size_t> encode_hello(const Hello& hello, Span<uint8_t> out) { return encode_message(hello, MessageKind::kHello, out); }

Result<Hello> parse_hello(Span<const uint8_t> payload) {
  if (!payload.empty()) RT_RETURN_IF_ERROR(check_protocol_version(payload[0]));  // before anything else
  return parse_message<Hello>(payload, MessageKind::kHello);
}

// The named encoder and parser of a message whose rules do not depend on its kind.
#define RT_LINK_NAMED_CODEC(name, Message, kind)                                  \
  Result<size_t> encode_##name(const Message& message, Span<uint8_t> out) {       \
    return encode_message(message, MessageKind::kind, out);                      \
  }                                                                               \
  Result<Message> parse_##name(Span<const uint8_t> payload) {                     \
    return parse_message<Message>(payload, MessageKind::kind);                   \
  }
RT_LINK_NAMED_CODEC(log, LogMessage, kLog)
RT_LINK_NAMED_CODEC(queue_data, QueueData, kInfeedData)  // kOutfeedData has the same rules
RT_LINK_NAMED_CODEC(infeed_credits, InfeedCredits, kInfeedCredits)
RT_LINK_NAMED_CODEC(in_place_result, InPlaceResult, kHostCallReplyInPlace)
RT_LINK_NAMED_CODEC(in_place_argument, InPlaceArgument, kHostCallArgumentInPlace)
RT_LINK_NAMED_CODEC(infeed_in_place, InfeedInPlace, kInfeedInPlace)
RT_LINK_NAMED_CODEC(infeed_spec, InfeedSpec, kInfeedSpec)
RT_LINK_NAMED_CODEC(pod_info, PodInfo, kPod)
RT_LINK_NAMED_CODEC(error, ErrorMessage, kError)
#undef RT_LINK_NAMED_CODEC

size_t max_chunk_data(const QueueData& data, size_t max_payload) { return chunk_room(data, max_payload); }

// Call messages: the rules depend on the kind (request, reply, run, result).
Result<size_t> encode_call(MessageKind kind, const CallMessage& call, Span<uint8_t> out) {
  return encode_message(call, kind, out);
}
Result<CallMessage> parse_call(MessageKind kind, Span<const uint8_t> payload) {
  return parse_message<CallMessage>(payload, kind);
}
size_t max_chunk_data(const CallMessage& call, size_t max_payload) { return chunk_room(call, max_payload); }

Status call_status(const CallMessage& call) {
  if (call.status == StatusCode::kOk) return Status::ok();
  return Status::error(call.status, "{}", call.text);
}

// A trace payload is a u16 count and that many described events.
Result<size_t> encode_trace(Span<const TraceEvent> events, Span<uint8_t> out) {
  if (events.size() > 0xFFFF) return invalid_argument("a trace batch holds at most 65535 events, got {}", events.size());
  WireWriter writer(out);
  writer.u16(static_cast<uint16_t>(events.size()));
  FieldWriter fields(writer, "trace event");
  for (const TraceEvent& event : events) {
    RT_RETURN_IF_ERROR(validate_message(event, MessageKind::kTrace));
    RT_RETURN_IF_ERROR(visit_fields(event, fields));
  }
  return finish_encode(writer, "trace", out.size());
}

Result<size_t> parse_trace(Span<const uint8_t> payload, Span<TraceEvent> events) {
  WireReader reader(payload);
  const uint16_t count = reader.u16();
  if (!reader.failed() && count > events.size())
    return invalid_argument("trace batch holds {} events, there is room for {}", count, events.size());
  FieldReader fields(reader);
  for (size_t i = 0; i < count && !reader.failed(); ++i) {
    RT_RETURN_IF_ERROR(visit_fields(events[i], fields));
    if (!reader.failed()) RT_RETURN_IF_ERROR(validate_message(events[i], MessageKind::kTrace));
  }
  RT_RETURN_IF_ERROR(finish_parse(reader, "trace"));
  return size_t{count};
}

}  // namespace rt::link
