// Host-link message payloads: one struct per layout, its fields described once in wire order (the
// RT_LINK_*_FIELDS lists below: F(wire type, member)), and from that description an encoder that
// writes exactly what the parser accepts and a parser for untrusted bytes (message_codec.hpp: it
// never reads outside the payload, and any bad length, code, count or trailing byte is an error).
// What the layout cannot say (which values are valid) is each message's validate rule
// (message.cpp), applied by the encoder before writing and by the parser after reading. Parsed
// views (StringView, Span, TensorChunk::data) point into the payload, so they live as long as the
// frame buffer. tests/fuzz/make_seeds.py reads the field lists to build its seeds.
//
// Wire types (message_codec.hpp): u8 u16 u32 u64 little-endian integers; u16x4 four u16; role,
// char8 one byte; status = TensorFlow's canonical code number (0 OK, 1 CANCELLED, 3 INVALID_ARGUMENT,
// 4 DEADLINE_EXCEEDED, 5 NOT_FOUND, 8 RESOURCE_EXHAUSTED, 9 FAILED_PRECONDITION, 10 ABORTED,
// 11 OUT_OF_RANGE, 12 UNIMPLEMENTED, 13 INTERNAL, 14 UNAVAILABLE); str8 = u8 length + bytes,
// str16 = u16 length + bytes (no terminator); rest = bytes to the end of the payload; dtype = the
// chunk's dtype code; shape = u8 rank + u64 dims[rank]; chunk = tensor_chunk.hpp, always last, its
// data running to the end of the payload; chunk_if_tensors = a chunk iff tensor_count > 0.
//
// The kinds (message_kind.hpp) and their payloads:
// kHello, both ways, channel 0. Each peer sends one first; messages of another protocol_version
// are not understood. max_payload: the largest payload it accepts, >= 512; mesh_shape (x, y, z,
// core). Board: core_count >= 1, every mesh entry >= 1, their product = core_count. Host: all zero.
// kLog, board -> host, channel = the core: level 'D' 'I' 'W' 'E', text without newline.
// kInfeedData (host -> board, channel = the destination core) and kOutfeedData (board -> host,
// channel = the source core); one message per chunk of each tuple element, in order.
// kInfeedCredits, board -> host, channel = the core: totals since the link started (not
// increments), so a lost or repeated credit message does no harm: the host may have sent at most
// that many tuples and tensor bytes on the queue. cut_dimensions, for a board of a pod (TPU
// per-host input): 4 bits per element (element e in bits 4e..4e+3), the dimension along which the
// board's part of each of the pod's tuples is cut (its shard dimension); 0 on one board. closed: 0,
// or 1 in the last credits of a queue, sent when the board closes it: the tuples it consumed are
// granted_tuples less its slots (the first grant), and the host sends nothing more on the queue.
// kHostCallRequest (board -> host), kHostCallReply (host -> board), channel = the calling core;
// kRun (host -> board, channel 0) and kResult (board -> host, channel = the core whose outputs):
//   id: call id / run id; replica: requests: the calling replica, else kNoReplica; status 0 in
//   requests and runs; tensor_index < count (0 if count is 0); text: the function or computation
//   name (non-empty) in requests and runs, the error message in replies and results (empty if
//   status is 0; a non-zero status carries no tensors). One message per chunk of each tensor
//   (argument, result, input, output) in order; tensor_count 0: no chunk.
// kHostCallReplyInPlace, host -> board, channel = the calling core (shared memory only: the result's
// bytes are already at the target the board armed, shm_ring.hpp).
// kHostCallArgumentInPlace, board -> host, channel = the calling core (shared memory only: instead
// of the argument's chunks; the host reads its bytes at `address` in the board's address space,
// which stays unchanged until the call's reply). text as in requests.
// Outfeed in place (shared memory): when every tensor of a large outfeed tuple lies in memory the
// host can read, the board sends the tuple as a host call to the reserved function kOutfeedFunction with
// the queue number as its text argument and the tensors as in-place arguments; the host delivers the
// tuple as outfeed and its (empty) reply says it has read the tensors, so the board may reuse them.
// kInfeedInPlace, host -> board, channel 0 (shared memory only: the tuple's bytes are already in its
// slot, shm_ring.hpp).
// kInfeedSpec, host -> board, channel 0 (shared memory only): before the first tuple of a queue it
// places in memory, the host says what each element of its file is (dtype, one step's shape); the
// board checks it against the queue as it checks a chunk (placed bytes carry no dtype) and fails
// the queue on a mismatch.
// kError, both ways, channel = the core concerned (0 if none): status not 0; related_kind 0 if none.
// kPod, host -> board, channel 0, right after every host hello: which task of its pod of boards
//   this board is (tpu run --boards K, one Open MPI rank per board): task < num_tasks <= kMaxPodTasks.
//   A single board is task 0 of 1. Board -> host, channel 0: the place the board took as it booted
//   (fixed then: the host's first kPod, or task 0 of 1 without one), sent once it is fixed and again
//   in answer to every later kPod, so a host attached to a running board learns what it is.
// kTrace, board -> host, channel 0: u16 event_count, then the events. phase as in Chrome traces:
//   'B' begin, 'E' end, 'X' complete (arg = duration ns), 'i' instant, 'C' counter (arg = value).
#pragma once
#include "message_kind.hpp"
#include "tensor_chunk.hpp"

namespace rt::link {

// The reserved host-call name of an outfeed tuple sent in place (see "Outfeed in place" above).
inline constexpr const char* kOutfeedFunction = ".outfeed";

inline constexpr uint8_t kProtocolVersion = 4;  // 2: InfeedCredits::cut_dimensions; 3: InfeedCredits::closed;
                                                 // 4: kPod both ways (the board answers with its place)
inline constexpr uint16_t kMinAdvertisedPayload = 512;

// TensorFlow's canonical code for a status code, and back.
uint8_t status_wire_code(StatusCode code);
Result<StatusCode> status_from_wire_code(uint8_t code);

enum class PeerRole : uint8_t { kHost = 0, kBoard = 1 };

struct Hello {
  uint8_t protocol_version = kProtocolVersion;
  PeerRole role = PeerRole::kHost;
  uint16_t core_count = 0;
  uint16_t max_payload = kMaxPayload;
  uint16_t mesh_shape[4] = {};
  StringView board;
  StringView app;
};
#define RT_LINK_HELLO_FIELDS(F)                                                                           \
  F(u8, protocol_version) F(role, role) F(u16, core_count) F(u16, max_payload) F(u16x4, mesh_shape) \
  F(str8, board) F(str8, app)

struct LogMessage {
  char level = 'I';
  StringView text;
};
#define RT_LINK_LOG_FIELDS(F) F(char8, level) F(rest, text)

// kInfeedData and kOutfeedData.
struct QueueData {
  uint16_t queue = 0;
  uint8_t element_count = 1;
  uint8_t element_index = 0;
  TensorChunk chunk;
};
#define RT_LINK_QUEUE_DATA_FIELDS(F) F(u16, queue) F(u8, element_count) F(u8, element_index) F(chunk, chunk)

struct InfeedCredits {
  uint16_t queue = 0;
  uint32_t granted_tuples = 0;
  uint64_t granted_bytes = 0;
  uint32_t cut_dimensions = 0;
  uint8_t closed = 0;  // 1: the queue closed on the board; the totals are final
};
#define RT_LINK_INFEED_CREDITS_FIELDS(F) \
  F(u16, queue) F(u32, granted_tuples) F(u64, granted_bytes) F(u32, cut_dimensions) F(u8, closed)

// Element e's cut dimension in InfeedCredits::cut_dimensions.
inline unsigned infeed_cut_dimension(uint32_t cut_dimensions, unsigned element) {
  return element < 8 ? (cut_dimensions >> (4 * element)) & 0xFu : 0;
}

// The replica a host call was made for, where the call names none (outside a replicated
// computation, and in every reply).
inline constexpr uint16_t kNoReplica = 0xFFFF;

// kHostCallRequest, kHostCallReply, kRun and kResult.
struct CallMessage {
  uint32_t id = 0;
  uint16_t replica = kNoReplica;  // requests: the calling replica (tpu names it when a call fails)
  StatusCode status = StatusCode::kOk;
  uint8_t tensor_count = 0;
  uint8_t tensor_index = 0;
  StringView text;
  TensorChunk chunk;  // used iff tensor_count > 0
};
#define RT_LINK_CALL_FIELDS(F)                                                                          \
  F(u32, id) F(u16, replica) F(status, status) F(u8, tensor_count) F(u8, tensor_index) F(str16, text) \
  F(chunk_if_tensors, chunk)

struct InPlaceResult {
  uint32_t id = 0;
  uint8_t tensor_count = 0;
  uint8_t tensor_index = 0;
  DType dtype = DType::kF32;
  Shape shape;
};
#define RT_LINK_IN_PLACE_RESULT_FIELDS(F) \
  F(u32, id) F(u8, tensor_count) F(u8, tensor_index) F(dtype, dtype) F(shape, shape)

struct InPlaceArgument {
  uint32_t id = 0;
  uint16_t replica = kNoReplica;
  uint8_t tensor_count = 0;
  uint8_t tensor_index = 0;
  StringView text;
  DType dtype = DType::kF32;
  Shape shape;
  uint64_t address = 0;
};
#define RT_LINK_IN_PLACE_ARGUMENT_FIELDS(F)                                                              \
  F(u32, id) F(u16, replica) F(u8, tensor_count) F(u8, tensor_index) F(str16, text) F(dtype, dtype) \
  F(shape, shape) F(u64, address)

struct InfeedInPlace {
  uint16_t queue = 0;
  uint64_t tuple = 0;
};
#define RT_LINK_INFEED_IN_PLACE_FIELDS(F) F(u16, queue) F(u64, tuple)

// kInfeedSpec: what element `element_index` of a queue's tuples is in the host's file.
struct InfeedSpec {
  uint16_t queue = 0;
  uint8_t element_count = 1;
  uint8_t element_index = 0;
  DType dtype = DType::kF32;
  Shape shape;  // one step's
};
#define RT_LINK_INFEED_SPEC_FIELDS(F) \
  F(u16, queue) F(u8, element_count) F(u8, element_index) F(dtype, dtype) F(shape, shape)

// The most boards a pod holds (runtime/tpu/mesh/pod_membership.hpp).
inline constexpr uint16_t kMaxPodTasks = 16;

struct PodInfo {
  uint16_t task = 0;
  uint16_t num_tasks = 1;
};
#define RT_LINK_POD_INFO_FIELDS(F) F(u16, task) F(u16, num_tasks)

struct ErrorMessage {
  StatusCode code = StatusCode::kInternal;
  uint8_t related_kind = 0;
  uint32_t related_sequence = 0;
  StringView message;
};
#define RT_LINK_ERROR_FIELDS(F) F(status, code) F(u8, related_kind) F(u32, related_sequence) F(str16, message)

// One event of a kTrace batch (the payload: u16 event_count, then the events).
struct TraceEvent {
  uint64_t timestamp_ns = 0;
  uint64_t arg = 0;
  uint16_t core = 0;
  char phase = 'i';
  StringView name;
};
#define RT_LINK_TRACE_EVENT_FIELDS(F) F(u64, timestamp_ns) F(u64, arg) F(u16, core) F(char8, phase) F(str8, name)

// A kTrace payload: its events (parsed into the caller's array).
struct TraceBatch {
  Span<const TraceEvent> events;
};

// Every described struct: M(struct, title for error messages, its field list).
#define RT_LINK_MESSAGES(M)                                                        \
  M(Hello, "hello", RT_LINK_HELLO_FIELDS)                                          \
  M(LogMessage, "log", RT_LINK_LOG_FIELDS)                                         \
  M(QueueData, "queue data", RT_LINK_QUEUE_DATA_FIELDS)                            \
  M(InfeedCredits, "infeed credits", RT_LINK_INFEED_CREDITS_FIELDS)                \
  M(CallMessage, "call", RT_LINK_CALL_FIELDS)                                      \
  M(InPlaceResult, "host-call-reply-in-place", RT_LINK_IN_PLACE_RESULT_FIELDS)     \
  M(InPlaceArgument, "host-call-argument-in-place", RT_LINK_IN_PLACE_ARGUMENT_FIELDS) \
  M(InfeedInPlace, "infeed-in-place", RT_LINK_INFEED_IN_PLACE_FIELDS)              \
  M(InfeedSpec, "infeed-spec", RT_LINK_INFEED_SPEC_FIELDS)                          \
  M(PodInfo, "pod", RT_LINK_POD_INFO_FIELDS)                                       \
  M(ErrorMessage, "error", RT_LINK_ERROR_FIELDS)                                   \
  M(TraceEvent, "trace event", RT_LINK_TRACE_EVENT_FIELDS)

// Each encoder writes the payload into `out` and returns its size; each parser checks a payload.
// (One line each in message.cpp over the described fields.)
Result<size_t> encode_hello(const Hello& hello, Span<uint8_t> out);
Result<Hello> parse_hello(Span<const uint8_t> payload);

Result<size_t> encode_log(const LogMessage& log, Span<uint8_t> out);
Result<LogMessage> parse_log(Span<const uint8_t> payload);

Result<size_t> encode_queue_data(const QueueData& data, Span<uint8_t> out);
Result<QueueData> parse_queue_data(Span<const uint8_t> payload);
// The most tensor bytes one message with these queue fields and this tensor can carry in a payload
// of at most `max_payload` bytes (the receiver's hello says how much it takes).
size_t max_chunk_data(const QueueData& data, size_t max_payload = kMaxPayload);

Result<size_t> encode_infeed_credits(const InfeedCredits& credits, Span<uint8_t> out);
Result<InfeedCredits> parse_infeed_credits(Span<const uint8_t> payload);

// `kind` is kHostCallRequest, kHostCallReply, kRun or kResult (what the status and text must be).
Result<size_t> encode_call(MessageKind kind, const CallMessage& call, Span<uint8_t> out);
Result<CallMessage> parse_call(MessageKind kind, Span<const uint8_t> payload);
size_t max_chunk_data(const CallMessage& call, size_t max_payload = kMaxPayload);
// The call's outcome as a Status (OK, or its code with the text as message).
Status call_status(const CallMessage& call);

Result<size_t> encode_in_place_result(const InPlaceResult& result, Span<uint8_t> out);
Result<InPlaceResult> parse_in_place_result(Span<const uint8_t> payload);

Result<size_t> encode_in_place_argument(const InPlaceArgument& argument, Span<uint8_t> out);
Result<InPlaceArgument> parse_in_place_argument(Span<const uint8_t> payload);

Result<size_t> encode_infeed_in_place(const InfeedInPlace& message, Span<uint8_t> out);
Result<InfeedInPlace> parse_infeed_in_place(Span<const uint8_t> payload);
Result<size_t> encode_infeed_spec(const InfeedSpec& message, Span<uint8_t> out);
Result<InfeedSpec> parse_infeed_spec(Span<const uint8_t> payload);

Result<size_t> encode_pod_info(const PodInfo& pod, Span<uint8_t> out);
Result<PodInfo> parse_pod_info(Span<const uint8_t> payload);

Result<size_t> encode_error(const ErrorMessage& error, Span<uint8_t> out);
Result<ErrorMessage> parse_error(Span<const uint8_t> payload);

Result<size_t> encode_trace(Span<const TraceEvent> events, Span<uint8_t> out);
// Parses into `events`; returns how many there were (an error if more than fit).
Result<size_t> parse_trace(Span<const uint8_t> payload, Span<TraceEvent> events);
// Payload bytes one trace event with this name takes.
constexpr size_t trace_event_size(StringView name) { return 8 + 8 + 2 + 1 + 1 + name.size(); }

}  // namespace rt::link
