// Message layouts described once (runtime/link/protocol/message.hpp's field lists, driven by
// message_codec.hpp): for every message kind in RT_LINK_MESSAGE_KINDS, a sample payload encodes,
// parses back to a message that re-encodes to the same bytes, agrees with the named encoder, and
// every truncation of it is rejected (except cutting a chunk's data short, which is a smaller chunk),
// as is any trailing byte.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/link/protocol/message_codec.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using namespace rt::link;
using rt::DType;
using rt::StatusCode;

rt::Span<const uint8_t> view(const Bytes& bytes) { return rt::Span<const uint8_t>(bytes.data(), bytes.size()); }

const uint8_t kData[] = {1, 2, 3, 4, 5, 6, 7, 8};

rt::Shape shape_of(int64_t rows, int64_t columns) {
  const int64_t dims[] = {rows, columns};
  return rt::Shape::make(rt::Span<const int64_t>(dims, 2)).value();
}

TensorChunk sample_chunk() {
  TensorChunk chunk;
  chunk.dtype = DType::kI8;
  chunk.shape = shape_of(2, 4);
  chunk.data = rt::Span<const uint8_t>(kData, sizeof kData);
  return chunk;
}

// A valid message of each described struct for `kind` (every field set to something non-default).
template <typename Message> Message sample(MessageKind kind);

template <> Hello sample<Hello>(MessageKind) {
  Hello hello;
  hello.role = PeerRole::kBoard;
  hello.core_count = 8;
  hello.max_payload = 4096;
  const uint16_t mesh[4] = {2, 2, 1, 2};
  for (unsigned i = 0; i < 4; ++i) hello.mesh_shape[i] = mesh[i];
  hello.board = "qemu-virt-a53";
  hello.app = "hello";
  return hello;
}
template <> LogMessage sample<LogMessage>(MessageKind) { return LogMessage{'W', "core 3 is warm"}; }
template <> QueueData sample<QueueData>(MessageKind) { return QueueData{7, 3, 2, sample_chunk()}; }
template <> InfeedCredits sample<InfeedCredits>(MessageKind) { return InfeedCredits{5, 1000, 1ull << 40}; }
template <> CallMessage sample<CallMessage>(MessageKind kind) {
  CallMessage call;
  call.id = 0x01020304;
  call.replica = kind == MessageKind::kHostCallRequest ? 3 : kNoReplica;
  const bool request = kind == MessageKind::kHostCallRequest || kind == MessageKind::kRun;
  call.text = request ? "format" : "";
  call.tensor_count = 2;
  call.tensor_index = 1;
  call.chunk = sample_chunk();
  return call;
}
template <> InPlaceResult sample<InPlaceResult>(MessageKind) {
  return InPlaceResult{9, 3, 2, DType::kF32, shape_of(5, 6)};
}
template <> InPlaceArgument sample<InPlaceArgument>(MessageKind) {
  return InPlaceArgument{9, 4, 3, 2, ".outfeed", DType::kBF16, shape_of(7, 1), 0x40001000};
}
template <> InfeedInPlace sample<InfeedInPlace>(MessageKind) { return InfeedInPlace{2, 123456789}; }
template <> InfeedSpec sample<InfeedSpec>(MessageKind) { return InfeedSpec{2, 3, 1, DType::kI32, shape_of(8, 3)}; }
template <> PodInfo sample<PodInfo>(MessageKind) { return PodInfo{3, 4}; }
template <> ErrorMessage sample<ErrorMessage>(MessageKind) {
  return ErrorMessage{StatusCode::kNotFound, 6, 77, "no such function"};
}
template <> TraceEvent sample<TraceEvent>(MessageKind) { return TraceEvent{1000, 50, 3, 'X', "compute"}; }

// The chunk data bytes of a message (the part of its payload the field sizer leaves out).
template <typename Message> size_t chunk_bytes(const Message&) { return 0; }
size_t chunk_bytes(const QueueData& data) { return data.chunk.data.size(); }
size_t chunk_bytes(const CallMessage& call) { return call.tensor_count > 0 ? call.chunk.data.size() : 0; }

// What a payload may lose at its end and still parse: a chunk all but its first data byte (a
// smaller chunk; a chunk of a non-empty tensor carries at least one byte); a `rest` field (log
// text) any of it. Such a message may also gain bytes at its end (`extendable`).
template <typename Message> size_t cuttable(const Message& message) {
  return chunk_bytes(message) > 0 ? chunk_bytes(message) - 1 : 0;
}
template <typename Message> bool extendable(const Message&) { return false; }
size_t cuttable(const LogMessage& log) { return log.text.size(); }
bool extendable(const LogMessage&) { return true; }

// The named encoders and parsers (message.hpp), which must agree with the description.
using Out = rt::Span<uint8_t>;
using In = rt::Span<const uint8_t>;
rt::Result<size_t> encode_named(MessageKind, const Hello& m, Out out) { return encode_hello(m, out); }
rt::Result<size_t> encode_named(MessageKind, const LogMessage& m, Out out) { return encode_log(m, out); }
rt::Result<size_t> encode_named(MessageKind, const QueueData& m, Out out) { return encode_queue_data(m, out); }
rt::Result<size_t> encode_named(MessageKind, const InfeedCredits& m, Out out) { return encode_infeed_credits(m, out); }
rt::Result<size_t> encode_named(MessageKind kind, const CallMessage& m, Out out) { return encode_call(kind, m, out); }
rt::Result<size_t> encode_named(MessageKind, const InPlaceResult& m, Out out) { return encode_in_place_result(m, out); }
rt::Result<size_t> encode_named(MessageKind, const InPlaceArgument& m, Out out) { return encode_in_place_argument(m, out); }
rt::Result<size_t> encode_named(MessageKind, const InfeedInPlace& m, Out out) { return encode_infeed_in_place(m, out); }
rt::Result<size_t> encode_named(MessageKind, const InfeedSpec& m, Out out) { return encode_infeed_spec(m, out); }
rt::Result<size_t> encode_named(MessageKind, const PodInfo& m, Out out) { return encode_pod_info(m, out); }
rt::Result<size_t> encode_named(MessageKind, const ErrorMessage& m, Out out) { return encode_error(m, out); }

bool parses_named(MessageKind kind, const Hello*, In in) { return parse_hello(in).is_ok() && kind == MessageKind::kHello; }
bool parses_named(MessageKind, const LogMessage*, In in) { return parse_log(in).is_ok(); }
bool parses_named(MessageKind, const QueueData*, In in) { return parse_queue_data(in).is_ok(); }
bool parses_named(MessageKind, const InfeedCredits*, In in) { return parse_infeed_credits(in).is_ok(); }
bool parses_named(MessageKind kind, const CallMessage*, In in) { return parse_call(kind, in).is_ok(); }
bool parses_named(MessageKind, const InPlaceResult*, In in) { return parse_in_place_result(in).is_ok(); }
bool parses_named(MessageKind, const InPlaceArgument*, In in) { return parse_in_place_argument(in).is_ok(); }
bool parses_named(MessageKind, const InfeedInPlace*, In in) { return parse_infeed_in_place(in).is_ok(); }
bool parses_named(MessageKind, const InfeedSpec*, In in) { return parse_infeed_spec(in).is_ok(); }
bool parses_named(MessageKind, const PodInfo*, In in) { return parse_pod_info(in).is_ok(); }
bool parses_named(MessageKind, const ErrorMessage*, In in) { return parse_error(in).is_ok(); }

template <typename Message>
Bytes encoded(const Message& message, MessageKind kind) {
  Bytes out(kMaxPayload);
  const rt::Result<size_t> size = encode_message(message, kind, Out(out.data(), out.size()));
  INFO(size.status().c_str());
  REQUIRE(size.is_ok());
  out.resize(*size);
  return out;
}

// Every cut of `payload` short of its end fails unless only the last `cuttable` bytes went; a
// trailing byte fails unless the payload is `extendable`.
template <typename Parses>
void check_truncations(const Bytes& payload, size_t cuttable, bool extendable, Parses parses) {
  REQUIRE(parses(payload));
  for (size_t size = 0; size < payload.size(); ++size) {
    INFO("cut to " << size << " of " << payload.size() << " bytes");
    CHECK(parses(Bytes(payload.begin(), payload.begin() + size)) == (size >= payload.size() - cuttable));
  }
  Bytes longer = payload;
  longer.push_back(0);
  CHECK(parses(longer) == extendable);
}

template <typename Message>
void check_layout(MessageKind kind) {
  const Message message = sample<Message>(kind);
  const Bytes payload = encoded(message, kind);
  Bytes named(kMaxPayload);
  const rt::Result<size_t> named_size = encode_named(kind, message, Out(named.data(), named.size()));
  REQUIRE(named_size.is_ok());
  named.resize(*named_size);
  CHECK(named == payload);

  const rt::Result<Message> parsed = parse_message<Message>(view(payload), kind);
  INFO(parsed.status().c_str());
  REQUIRE(parsed.is_ok());
  CHECK(encoded(*parsed, kind) == payload);  // every field came back

  FieldSizer sizer;
  REQUIRE(visit_fields(message, sizer).is_ok());
  CHECK(sizer.size() == payload.size() - chunk_bytes(message));  // the description's size is the wire's

  check_truncations(payload, cuttable(message), extendable(message),
                    [&](const Bytes& bytes) { return parses_named(kind, static_cast<const Message*>(nullptr), view(bytes)); });
}

// kTrace: a u16 count, then described events.
template <>
void check_layout<TraceBatch>(MessageKind) {
  const TraceEvent events[] = {sample<TraceEvent>(MessageKind::kTrace), {7, 8, 9, 'B', "step"}};
  Bytes payload(kMaxPayload);
  const rt::Result<size_t> size = encode_trace(events, Out(payload.data(), payload.size()));
  REQUIRE(size.is_ok());
  payload.resize(*size);
  CHECK(payload.size() == 2 + trace_event_size("compute") + trace_event_size("step"));
  TraceEvent parsed[2];
  REQUIRE(parse_trace(view(payload), parsed).value() == 2);
  Bytes again(kMaxPayload);
  again.resize(encode_trace(parsed, Out(again.data(), again.size())).value());
  CHECK(again == payload);
  check_truncations(payload, 0, false, [](const Bytes& bytes) {
    TraceEvent room[2];
    return parse_trace(view(bytes), room).is_ok();
  });
}

}  // namespace

TEST_CASE("Every message kind round-trips through its described fields and rejects every truncation",
          "[link][message][layout]") {
#define RT_LINK_CHECK_KIND(number, enumerator, name, Payload, comment) \
  SECTION(name) { check_layout<Payload>(MessageKind::enumerator); }
  RT_LINK_MESSAGE_KINDS(RT_LINK_CHECK_KIND)
#undef RT_LINK_CHECK_KIND
}

TEST_CASE("The kind table numbers the kinds 1.. in order and names each", "[link][message][layout]") {
  uint8_t expected = 1;
#define RT_LINK_CHECK_NUMBER(number, enumerator, name, Payload, comment)           \
  CHECK(static_cast<uint8_t>(MessageKind::enumerator) == expected++);              \
  CHECK(std::string(message_kind_name(MessageKind::enumerator)) == std::string(name));
  RT_LINK_MESSAGE_KINDS(RT_LINK_CHECK_NUMBER)
#undef RT_LINK_CHECK_NUMBER
  CHECK(expected == kLastMessageKind + 1);
  CHECK(kMessageKinds.contains(1));
  CHECK_FALSE(kMessageKinds.contains(0));
  CHECK_FALSE(kMessageKinds.contains(kLastMessageKind + 1));
}
