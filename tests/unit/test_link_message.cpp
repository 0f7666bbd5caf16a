// Message payloads (runtime/link/protocol/message.cpp, tensor_chunk.cpp): a round trip of every message kind,
// the hand-checked byte layout of a few, validation errors with their texts, tensors split into
// chunks and put back together, and robustness: every truncation of a valid payload is an error,
// random payloads never crash a parser, and whatever a parser accepts re-encodes to the same bytes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "runtime/link/protocol/message.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using namespace rt::link;
using rt::DType;
using rt::StatusCode;

rt::Span<const uint8_t> view(const Bytes& bytes) { return rt::Span<const uint8_t>(bytes.data(), bytes.size()); }
std::string text(rt::StringView view) { return std::string(view.data(), view.size()); }
Bytes bytes_of(rt::Span<const uint8_t> span) { return Bytes(span.begin(), span.end()); }

// Encodes with one of the encoders into a fresh buffer of kMaxPayload bytes.
template <class Encode>
Bytes encoded(Encode encode) {
  Bytes out(rt::link::kMaxPayload);
  rt::Result<size_t> size = encode(rt::Span<uint8_t>(out.data(), out.size()));
  INFO(size.status().c_str());
  REQUIRE(size.is_ok());
  out.resize(*size);
  return out;
}

template <class Encode>
std::string encode_error(Encode encode) {
  Bytes out(rt::link::kMaxPayload);
  rt::Result<size_t> size = encode(rt::Span<uint8_t>(out.data(), out.size()));
  REQUIRE_FALSE(size.is_ok());
  return size.status().c_str();
}

rt::Shape shape_of(std::initializer_list<int64_t> dims) {
  std::vector<int64_t> sizes(dims);
  auto shape = rt::Shape::make(rt::Span<const int64_t>(sizes.data(), sizes.size()));
  REQUIRE(shape.is_ok());
  return *shape;
}

TensorChunk chunk_of(DType dtype, const rt::Shape& shape, const Bytes& data, uint64_t offset = 0) {
  TensorChunk chunk;
  chunk.dtype = dtype;
  chunk.shape = shape;
  chunk.offset = offset;
  chunk.data = view(data);
  return chunk;
}

void check_same_chunk(const TensorChunk& got, const TensorChunk& want) {
  CHECK(got.dtype == want.dtype);
  CHECK(got.shape == want.shape);
  CHECK(got.offset == want.offset);
  CHECK(bytes_of(got.data) == bytes_of(want.data));
}

Hello board_hello() {
  Hello hello;
  hello.role = PeerRole::kBoard;
  hello.core_count = 8;
  hello.max_payload = 4096;
  hello.mesh_shape[0] = 2;
  hello.mesh_shape[1] = 2;
  hello.mesh_shape[2] = 1;
  hello.mesh_shape[3] = 2;
  hello.board = "qemu-virt-a53";
  hello.app = "hello";
  return hello;
}

}  // namespace

TEST_CASE("Hello round-trips with the documented layout", "[link][message]") {
  const Hello hello = board_hello();
  const Bytes payload = encoded([&](rt::Span<uint8_t> out) { return encode_hello(hello, out); });
  Bytes expected = {4, 1, 8, 0, 0x00, 0x10, 2, 0, 2, 0, 1, 0, 2, 0, 13};  // protocol version 4
  for (char c : std::string("qemu-virt-a53")) expected.push_back(uint8_t(c));
  expected.push_back(5);
  for (char c : std::string("hello")) expected.push_back(uint8_t(c));
  CHECK(payload == expected);

  auto parsed = parse_hello(view(payload));
  REQUIRE(parsed.is_ok());
  CHECK(parsed->protocol_version == kProtocolVersion);
  CHECK(parsed->role == PeerRole::kBoard);
  CHECK(parsed->core_count == 8);
  CHECK(parsed->max_payload == 4096);
  CHECK(parsed->mesh_shape[3] == 2);
  CHECK(text(parsed->board) == "qemu-virt-a53");
  CHECK(text(parsed->app) == "hello");

  Hello host;
  host.board = "tpu-host";
  const Bytes host_payload = encoded([&](rt::Span<uint8_t> out) { return encode_hello(host, out); });
  auto parsed_host = parse_hello(view(host_payload));
  REQUIRE(parsed_host.is_ok());
  CHECK(parsed_host->role == PeerRole::kHost);
  CHECK(parsed_host->core_count == 0);
}

TEST_CASE("Hello validation", "[link][message]") {
  Hello hello = board_hello();
  hello.mesh_shape[2] = 2;
  CHECK(encode_error([&](rt::Span<uint8_t> out) { return encode_hello(hello, out); }) ==
        "board hello: mesh_shape [2, 2, 2, 2] must be 4 positive entries whose product is core_count 8");
  hello = board_hello();
  hello.max_payload = 100;
  CHECK(encode_error([&](rt::Span<uint8_t> out) { return encode_hello(hello, out); }) ==
        "hello advertises a maximum payload of 100 bytes, at least 512 are required");
  hello = board_hello();
  hello.role = static_cast<PeerRole>(7);
  CHECK_FALSE(encode_hello(hello, rt::Span<uint8_t>()).is_ok());
  Hello host;
  host.core_count = 4;
  CHECK_FALSE(encode_hello(host, rt::Span<uint8_t>()).is_ok());
  const std::string long_name(256, 'x');
  hello = board_hello();
  hello.board = rt::StringView(long_name.data(), long_name.size());
  CHECK_FALSE(encode_hello(hello, rt::Span<uint8_t>()).is_ok());

  // Another protocol version is reported as such, whatever follows.
  auto other = parse_hello(view(Bytes{3, 1, 2, 3}));
  REQUIRE_FALSE(other.is_ok());
  CHECK(std::string(other.status().c_str()) == "peer speaks host-link protocol version 3, this side speaks 4");
  auto newer = parse_hello(view(Bytes{5, 1, 2, 3}));
  REQUIRE_FALSE(newer.is_ok());
  CHECK(std::string(newer.status().c_str()) == "peer speaks host-link protocol version 5, this side speaks 4");
  // A small output buffer is an error, not an overrun.
  Bytes small(10, 0xEE);
  CHECK_FALSE(encode_hello(board_hello(), rt::Span<uint8_t>(small.data(), 9)).is_ok());
  CHECK(small[9] == 0xEE);
}

TEST_CASE("Log round-trips", "[link][message]") {
  for (char level : std::string("DIWE")) {
    const LogMessage log{level, "[c3] collective done in 12 us"};
    const Bytes payload = encoded([&](rt::Span<uint8_t> out) { return encode_log(log, out); });
    CHECK(payload[0] == uint8_t(level));
    auto parsed = parse_log(view(payload));
    REQUIRE(parsed.is_ok());
    CHECK(parsed->level == level);
    CHECK(text(parsed->text) == "[c3] collective done in 12 us");
  }
  CHECK(parse_log(view(Bytes{'I'})).is_ok());  // empty text
  CHECK_FALSE(parse_log(view(Bytes{'X', 'a'})).is_ok());
  CHECK_FALSE(parse_log(view(Bytes{})).is_ok());
  const std::string longest(kMaxPayload - 1, 'a');
  CHECK(encode_log({'I', rt::StringView(longest.data(), longest.size())},
                   rt::Span<uint8_t>(Bytes(kMaxPayload).data(), kMaxPayload))
            .is_ok());
  const std::string too_long(kMaxPayload, 'a');
  Bytes big(2 * kMaxPayload);
  CHECK_FALSE(
      encode_log({'I', rt::StringView(too_long.data(), too_long.size())}, rt::Span<uint8_t>(big.data(), big.size()))
          .is_ok());
}

TEST_CASE("Infeed and outfeed data round-trip with the documented chunk layout", "[link][message]") {
  const Bytes data = {1, 2, 3, 4, 5, 6, 7, 8};
  QueueData message;
  message.queue = 0x0102;
  message.element_count = 3;
  message.element_index = 2;
  message.chunk = chunk_of(DType::kF32, shape_of({2, 3}), data, 16);
  const Bytes payload = encoded([&](rt::Span<uint8_t> out) { return encode_queue_data(message, out); });
  const Bytes expected = {0x02, 0x01, 3, 2,                                      // queue, element count, element index
                          1,    2,                                               // f32 (TensorFlow DT_FLOAT), rank 2
                          2,    0,    0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,  // dims
                          16,   0,    0, 0, 0, 0, 0, 0,                          // byte offset
                          1,    2,    3, 4, 5, 6, 7, 8};
  CHECK(payload == expected);
  auto parsed = parse_queue_data(view(payload));
  REQUIRE(parsed.is_ok());
  CHECK(parsed->queue == 0x0102);
  CHECK(parsed->element_count == 3);
  CHECK(parsed->element_index == 2);
  check_same_chunk(parsed->chunk, message.chunk);
}

TEST_CASE("Tensor chunks: every dtype, scalars, empty tensors, bounds", "[link][message]") {
  const DType dtypes[] = {DType::kF32, DType::kF64, DType::kBF16, DType::kF16,  DType::kI8,
                          DType::kI32, DType::kU32, DType::kI64,  DType::kBool, DType::kC64};
  for (DType dtype : dtypes) {
    auto back = dtype_from_wire_code(dtype_wire_code(dtype));
    REQUIRE(back.is_ok());
    CHECK(*back == dtype);
    const Bytes data(rt::dtype_size(dtype), 0x5C);  // a scalar
    QueueData message;
    message.chunk = chunk_of(dtype, shape_of({}), data);
    const Bytes payload = encoded([&](rt::Span<uint8_t> out) { return encode_queue_data(message, out); });
    auto parsed = parse_queue_data(view(payload));
    REQUIRE(parsed.is_ok());
    check_same_chunk(parsed->chunk, message.chunk);
  }
  CHECK(dtype_wire_code(DType::kBF16) == 14);
  CHECK_FALSE(dtype_from_wire_code(7).is_ok());  // DT_STRING

  QueueData empty;
  empty.chunk = chunk_of(DType::kI32, shape_of({4, 0, 2}), {});
  const Bytes empty_payload = encoded([&](rt::Span<uint8_t> out) { return encode_queue_data(empty, out); });
  auto parsed = parse_queue_data(view(empty_payload));
  REQUIRE(parsed.is_ok());
  CHECK(parsed->chunk.shape.num_elements() == 0);

  const Bytes four(4, 1);
  QueueData bad;
  bad.chunk = chunk_of(DType::kI32, shape_of({2}), four, 5);  // bytes 5..8 of an 8-byte tensor
  CHECK(encode_error([&](rt::Span<uint8_t> out) { return encode_queue_data(bad, out); }) ==
        "tensor chunk [5, +4) lies outside the tensor's 8 bytes");
  bad.chunk = chunk_of(DType::kI32, shape_of({2}), {}, 0);
  CHECK_FALSE(encode_queue_data(bad, rt::Span<uint8_t>(Bytes(64).data(), 64)).is_ok());
  bad.chunk = chunk_of(DType::kI8, shape_of({1 << 20, 1 << 20}), four);  // exactly 2^40 bytes
  CHECK_FALSE(encode_queue_data(bad, rt::Span<uint8_t>(Bytes(64).data(), 64)).is_ok());
  bad.chunk = chunk_of(DType::kI32, shape_of({2}), four);
  bad.element_count = 2;
  bad.element_index = 2;
  CHECK_FALSE(encode_queue_data(bad, rt::Span<uint8_t>(Bytes(64).data(), 64)).is_ok());

  // Hostile dims on the wire: negative, rank 7, products that overflow 64 bits.
  Bytes negative = {0, 0, 1, 0, 3, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_FALSE(parse_queue_data(view(negative)).is_ok());
  Bytes rank7 = {0, 0, 1, 0, 3, 7};
  rank7.resize(rank7.size() + 8 * 7 + 8, 1);
  CHECK_FALSE(parse_queue_data(view(rank7)).is_ok());
  Bytes overflow = {0, 0, 1, 0, 3, 4};
  for (int d = 0; d < 4; ++d) {
    const uint8_t dim[8] = {0, 0, 0, 0, 0, 0, 1, 0};  // 2^48 each
    overflow.insert(overflow.end(), dim, dim + 8);
  }
  overflow.resize(overflow.size() + 8 + 4, 0);
  CHECK_FALSE(parse_queue_data(view(overflow)).is_ok());
  // An empty tensor (one dimension 0) whose other dimensions multiply past the limit: refused too,
  // or its element count would overflow wherever it is computed.
  Bytes empty_but_huge = {0, 0, 1, 0, 3, 3};
  for (uint8_t top : {0x40, 0x40, 0x00}) {
    const uint8_t dim[8] = {0, 0, 0, 0, 0, 0, 0, top};  // 2^62, 2^62, 0
    empty_but_huge.insert(empty_but_huge.end(), dim, dim + 8);
  }
  empty_but_huge.resize(empty_but_huge.size() + 8, 0);
  auto refused = parse_queue_data(view(empty_but_huge));
  REQUIRE_FALSE(refused.is_ok());
  CHECK(std::string(refused.status().message().data(), refused.status().message().size()).find("2^40 bytes or more") !=
        std::string::npos);
}

TEST_CASE("A tensor larger than a frame travels as chunks and is put back together", "[link][message]") {
  std::mt19937 rng(5);
  const rt::Shape shape = shape_of({37, 61, 3});
  Bytes tensor(37 * 61 * 3 * 4);
  for (uint8_t& byte : tensor) byte = static_cast<uint8_t>(rng());
  QueueData message;
  message.queue = 4;
  message.chunk = chunk_of(DType::kF32, shape, {});
  const size_t room = max_chunk_data(message);
  CHECK(room == kMaxPayload - 4 - (2 + 3 * 8 + 8));

  Bytes rebuilt(tensor.size(), 0);
  size_t messages = 0;
  for (size_t offset = 0; offset < tensor.size(); offset += room) {
    const size_t size = std::min(room, tensor.size() - offset);
    message.chunk.offset = offset;
    message.chunk.data = rt::Span<const uint8_t>(tensor.data() + offset, size);
    const Bytes payload = encoded([&](rt::Span<uint8_t> out) { return encode_queue_data(message, out); });
    CHECK(payload.size() <= kMaxPayload);
    auto parsed = parse_queue_data(view(payload));
    REQUIRE(parsed.is_ok());
    REQUIRE(parsed->chunk.offset + parsed->chunk.data.size() <= rebuilt.size());
    std::memcpy(rebuilt.data() + parsed->chunk.offset, parsed->chunk.data.data(), parsed->chunk.data.size());
    ++messages;
  }
  CHECK(messages == (tensor.size() + room - 1) / room);
  CHECK(rebuilt == tensor);
  // A chunk of exactly the room fills a payload; one byte more does not fit.
  const Bytes big(kMaxPayload, 1);
  message.chunk = chunk_of(DType::kI8, shape_of({static_cast<int64_t>(big.size())}), big);
  const size_t room_rank1 = max_chunk_data(message);
  Bytes out(2 * kMaxPayload);
  message.chunk.data = rt::Span<const uint8_t>(big.data(), room_rank1);
  auto full = encode_queue_data(message, rt::Span<uint8_t>(out.data(), out.size()));
  REQUIRE(full.is_ok());
  CHECK(*full == kMaxPayload);
  message.chunk.data = rt::Span<const uint8_t>(big.data(), room_rank1 + 1);
  CHECK(encode_error([&](rt::Span<uint8_t> out) { return encode_queue_data(message, out); }) ==
        "queue data payload does not fit in the 4096 byte output");
  // With room in the output the message encodes, one byte over what a UART frame carries: the frame
  // layer refuses it there, while shared-memory records (up to kMaxRecordPayload) take it.
  auto over = encode_queue_data(message, rt::Span<uint8_t>(out.data(), out.size()));
  REQUIRE(over.is_ok());
  CHECK(*over == kMaxPayload + 1);
  Bytes wire(max_wire_frame_size(*over) + 16);
  CHECK_FALSE(encode_frame(message_header(MessageKind::kInfeedData, 0, 0), rt::Span<const uint8_t>(out.data(), *over),
                           rt::Span<uint8_t>(wire.data(), wire.size()))
                  .is_ok());
  uint8_t head[kFrameHeaderBytes], tail[kFrameCrcBytes];
  CHECK(frame_body_parts(message_header(MessageKind::kInfeedData, 0, 0), rt::Span<const uint8_t>(out.data(), *over), head, tail,
                         kMaxRecordPayload)
            .is_ok());
}

TEST_CASE("Infeed credits round-trip", "[link][message]") {
  // cut_dimensions 0x10: element 0 cut along dimension 0, element 1 along dimension 1.
  const InfeedCredits credits{7, 123456, 0x0102030405060708ull, 0x10};
  const Bytes payload = encoded([&](rt::Span<uint8_t> out) { return encode_infeed_credits(credits, out); });
  CHECK(payload == Bytes({7, 0, 0x40, 0xE2, 0x01, 0x00, 8, 7, 6, 5, 4, 3, 2, 1, 0x10, 0, 0, 0, 0}));
  auto parsed = parse_infeed_credits(view(payload));
  REQUIRE(parsed.is_ok());
  CHECK(parsed->queue == 7);
  CHECK(parsed->closed == 0);
  CHECK(parsed->granted_tuples == 123456);
  CHECK(parsed->granted_bytes == 0x0102030405060708ull);
  CHECK(infeed_cut_dimension(parsed->cut_dimensions, 0) == 0);
  CHECK(infeed_cut_dimension(parsed->cut_dimensions, 1) == 1);
  CHECK(infeed_cut_dimension(parsed->cut_dimensions, 2) == 0);

  // A queue's final credits (the board closed it) carry closed = 1; any other byte is refused.
  Bytes closing = payload;
  closing.back() = 1;
  auto final_credits = parse_infeed_credits(view(closing));
  REQUIRE(final_credits.is_ok());
  CHECK(final_credits->closed == 1);
  closing.back() = 2;
  const rt::Status refused = parse_infeed_credits(view(closing)).status();
  CHECK(std::string(refused.message().data(), refused.message().size()) == "infeed credits' closed byte is 2, not 0 or 1");
}

TEST_CASE("Host-call request, reply, run and result round-trip", "[link][message]") {
  const Bytes data = {0, 0, 0x80, 0x3F};  // 1.0f
  CallMessage request;
  request.id = 77;
  request.replica = 0x0102;
  request.tensor_count = 1;
  request.text = "computation_with_string_ops";
  request.chunk = chunk_of(DType::kF32, shape_of({}), data);
  for (MessageKind kind : {MessageKind::kHostCallRequest, MessageKind::kRun}) {
    const Bytes payload = encoded([&](rt::Span<uint8_t> out) { return encode_call(kind, request, out); });
    CHECK(payload[4] == 2);  // the replica, little-endian
    CHECK(payload[5] == 1);
    CHECK(payload[6] == 0);  // status OK
    auto parsed = parse_call(kind, view(payload));
    REQUIRE(parsed.is_ok());
    CHECK(parsed->id == 77);
    CHECK(parsed->replica == 0x0102);
    CHECK(parsed->tensor_count == 1);
    CHECK(text(parsed->text) == "computation_with_string_ops");
    check_same_chunk(parsed->chunk, request.chunk);
    CHECK(call_status(*parsed).is_ok());
  }

  // The room for tensor bytes: the payload minus the fixed fields, the name and the chunk header.
  const Bytes big(kMaxPayload, 0x11);
  request.chunk = chunk_of(DType::kI8, shape_of({static_cast<int64_t>(big.size())}), big);
  const size_t room = max_chunk_data(request);
  CHECK(room == kMaxPayload - 11 - request.text.size() - 18);
  request.chunk.data = rt::Span<const uint8_t>(big.data(), room);
  CHECK(encoded([&](rt::Span<uint8_t> out) {
          return encode_call(MessageKind::kHostCallRequest, request, out);
        }).size() == kMaxPayload);
  // No message exceeds the largest record payload, whatever room the output has.
  const Bytes huge(kMaxRecordPayload + 64, 0x11);
  request.chunk = chunk_of(DType::kI8, shape_of({static_cast<int64_t>(huge.size())}), huge);
  const size_t record_room = max_chunk_data(request, kMaxRecordPayload);
  CHECK(record_room == kMaxRecordPayload - 11 - request.text.size() - 18);
  Bytes roomy(2 * kMaxRecordPayload);
  request.chunk.data = rt::Span<const uint8_t>(huge.data(), record_room);
  auto largest = encode_call(MessageKind::kHostCallRequest, request, rt::Span<uint8_t>(roomy.data(), roomy.size()));
  REQUIRE(largest.is_ok());
  CHECK(*largest == kMaxRecordPayload);
  request.chunk.data = rt::Span<const uint8_t>(huge.data(), record_room + 1);
  CHECK_FALSE(encode_call(MessageKind::kHostCallRequest, request, rt::Span<uint8_t>(roomy.data(), roomy.size())).is_ok());

  CallMessage failed;
  failed.id = 77;
  failed.status = StatusCode::kNotFound;
  failed.text = "no host function named 'fmt'";
  for (MessageKind kind : {MessageKind::kHostCallReply, MessageKind::kResult}) {
    const Bytes payload = encoded([&](rt::Span<uint8_t> out) { return encode_call(kind, failed, out); });
    CHECK(payload[4] == 0xFF);  // no replica (kNoReplica)
    CHECK(payload[6] == 5);     // NOT_FOUND
    auto parsed = parse_call(kind, view(payload));
    REQUIRE(parsed.is_ok());
    CHECK(parsed->tensor_count == 0);
    const rt::Status status = call_status(*parsed);
    CHECK(status.code() == StatusCode::kNotFound);
    CHECK(std::string(status.c_str()) == "no host function named 'fmt'");
  }

  CallMessage no_tensors;  // a successful reply without results
  no_tensors.id = 9;
  const Bytes payload =
      encoded([&](rt::Span<uint8_t> out) { return encode_call(MessageKind::kHostCallReply, no_tensors, out); });
  CHECK(payload == Bytes({9, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0}));
  CHECK(parse_call(MessageKind::kHostCallReply, view(payload)).is_ok());
  CHECK_FALSE(parse_call(MessageKind::kHostCallRequest, view(payload)).is_ok());  // requests name a function
  CHECK_FALSE(parse_call(MessageKind::kLog, view(payload)).is_ok());
}

TEST_CASE("Call validation", "[link][message]") {
  const auto error_of = [](MessageKind kind, const CallMessage& call) {
    return encode_error([&](rt::Span<uint8_t> out) { return encode_call(kind, call, out); });
  };
  CallMessage call;
  call.text = "f";
  call.status = StatusCode::kInternal;
  CHECK(error_of(MessageKind::kHostCallRequest, call) == "a host-call-request message carries status 0, got INTERNAL");
  call.status = StatusCode::kOk;
  call.text = "";
  CHECK(error_of(MessageKind::kRun, call) == "a run message names its function or computation, the name is empty");
  call.text = "oops";
  CHECK(error_of(MessageKind::kResult, call) == "a successful result carries no error message");
  call.status = StatusCode::kAborted;
  call.tensor_count = 1;
  CHECK(error_of(MessageKind::kHostCallReply, call) == "a failed host-call-reply carries no tensors, it has 1");
  call.status = StatusCode::kOk;
  call.text = "";
  call.tensor_index = 1;
  CHECK(error_of(MessageKind::kHostCallReply, call) == "host-call-reply tensor index 1 is outside its 1 tensors");
  call.tensor_count = 0;
  CHECK_FALSE(encode_call(MessageKind::kHostCallReply, call, rt::Span<uint8_t>()).is_ok());
  // Unknown status codes on the wire.
  CHECK_FALSE(parse_call(MessageKind::kHostCallReply, view(Bytes{1, 0, 0, 0, 2, 0, 0, 0, 0})).is_ok());  // UNKNOWN
  CHECK_FALSE(parse_call(MessageKind::kHostCallReply, view(Bytes{1, 0, 0, 0, 99, 0, 0, 0, 0})).is_ok());
}

TEST_CASE("Status codes map to TensorFlow's canonical numbers and back", "[link][message]") {
  for (unsigned code = 0; code <= static_cast<unsigned>(rt::kLastStatusCode); ++code) {
    const auto status = static_cast<StatusCode>(code);
    auto back = status_from_wire_code(status_wire_code(status));
    REQUIRE(back.is_ok());
    CHECK(*back == status);
  }
  CHECK(status_wire_code(StatusCode::kInvalidArgument) == 3);
  CHECK(status_wire_code(StatusCode::kUnavailable) == 14);
  CHECK(status_wire_code(StatusCode::kCancelled) == 1);
}

TEST_CASE("Error messages round-trip", "[link][message]") {
  const ErrorMessage error{StatusCode::kResourceExhausted, uint8_t(MessageKind::kInfeedData), 0xDEADBEEF,
                           "infeed queue 3 of core 2 is full"};
  const Bytes payload = encoded([&](rt::Span<uint8_t> out) { return encode_error(error, out); });
  CHECK(payload[0] == 8);
  auto parsed = parse_error(view(payload));
  REQUIRE(parsed.is_ok());
  CHECK(parsed->code == StatusCode::kResourceExhausted);
  CHECK(parsed->related_kind == uint8_t(MessageKind::kInfeedData));
  CHECK(parsed->related_sequence == 0xDEADBEEFu);
  CHECK(text(parsed->message) == "infeed queue 3 of core 2 is full");
  CHECK_FALSE(encode_error({StatusCode::kOk, 0, 0, "fine"}, rt::Span<uint8_t>(Bytes(64).data(), 64)).is_ok());
  CHECK_FALSE(parse_error(view(Bytes{0, 0, 0, 0, 0, 0, 0, 0})).is_ok());
}

TEST_CASE("Trace batches round-trip", "[link][message]") {
  const TraceEvent events[] = {
      {1000, 0, 0, 'B', "all_reduce"},
      {2500, 1500, 3, 'X', "matmul 128x128"},
      {2600, 42, 1, 'C', "infeed_depth"},
      {2700, 0, 7, 'i', ""},
  };
  const Bytes payload = encoded([&](rt::Span<uint8_t> out) { return encode_trace(events, out); });
  size_t expected_size = 2;
  for (const TraceEvent& event : events) expected_size += trace_event_size(event.name);
  CHECK(payload.size() == expected_size);
  TraceEvent parsed[8];
  auto count = parse_trace(view(payload), parsed);
  REQUIRE(count.is_ok());
  REQUIRE(*count == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(parsed[i].timestamp_ns == events[i].timestamp_ns);
    CHECK(parsed[i].arg == events[i].arg);
    CHECK(parsed[i].core == events[i].core);
    CHECK(parsed[i].phase == events[i].phase);
    CHECK(text(parsed[i].name) == text(events[i].name));
  }
  TraceEvent too_few[3];
  CHECK_FALSE(parse_trace(view(payload), too_few).is_ok());
  const TraceEvent bad[] = {{0, 0, 0, 'Q', "x"}};
  CHECK_FALSE(encode_trace(bad, rt::Span<uint8_t>(Bytes(64).data(), 64)).is_ok());
  CHECK(*parse_trace(view(Bytes{0, 0}), too_few) == 0);
}

TEST_CASE("Every truncation of a valid payload is an error, trailing bytes too", "[link][message]") {
  const Bytes scalar = {1, 2, 3, 4};
  CallMessage call;
  call.id = 3;
  call.tensor_count = 2;
  call.tensor_index = 1;
  call.text = "fmt";
  call.chunk = chunk_of(DType::kI32, shape_of({1}), scalar);
  QueueData data;
  data.chunk = chunk_of(DType::kI32, shape_of({1}), scalar);
  const TraceEvent events[] = {{1, 2, 3, 'B', "step"}, {4, 5, 6, 'E', "step"}};
  struct Case {
    const char* name;
    Bytes payload;
    std::function<bool(const Bytes&)> parses;
    size_t cuttable;  // trailing bytes that may go: tensor data can be cut short (a smaller chunk)
  };
  const std::vector<Case> cases = {
      {"hello", encoded([&](rt::Span<uint8_t> out) { return encode_hello(board_hello(), out); }),
       [](const Bytes& p) { return parse_hello(view(p)).is_ok(); }, 0},
      {"credits", encoded([&](rt::Span<uint8_t> out) {
         return encode_infeed_credits({1, 2, 3}, out);
       }),
       [](const Bytes& p) { return parse_infeed_credits(view(p)).is_ok(); }, 0},
      {"error", encoded([&](rt::Span<uint8_t> out) {
         return encode_error({StatusCode::kInternal, 1, 2, "bad"}, out);
       }),
       [](const Bytes& p) { return parse_error(view(p)).is_ok(); }, 0},
      {"trace", encoded([&](rt::Span<uint8_t> out) { return encode_trace(events, out); }),
       [](const Bytes& p) {
         TraceEvent parsed[4];
         return parse_trace(view(p), parsed).is_ok();
       },
       0},
      {"call", encoded([&](rt::Span<uint8_t> out) { return encode_call(MessageKind::kHostCallRequest, call, out); }),
       [](const Bytes& p) { return parse_call(MessageKind::kHostCallRequest, view(p)).is_ok(); }, 3},
      {"queue data", encoded([&](rt::Span<uint8_t> out) { return encode_queue_data(data, out); }),
       [](const Bytes& p) { return parse_queue_data(view(p)).is_ok(); }, 3},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    REQUIRE(c.parses(c.payload));
    for (size_t size = 0; size < c.payload.size(); ++size) {
      INFO("cut to " << size << " of " << c.payload.size() << " bytes");
      CHECK(c.parses(Bytes(c.payload.begin(), c.payload.begin() + size)) == (size >= c.payload.size() - c.cuttable));
    }
    Bytes longer = c.payload;
    longer.push_back(0);
    CHECK_FALSE(c.parses(longer));  // for chunks: data past the tensor's end
  }
}

TEST_CASE("Parsers survive random payloads; what they accept re-encodes to the same bytes", "[link][message]") {
  std::mt19937 rng(31337);
  // Seeds: valid payloads of every layout, mutated below.
  const Bytes scalar = {9, 8, 7, 6};
  CallMessage call;
  call.tensor_count = 1;
  call.text = "f";
  call.chunk = chunk_of(DType::kF32, shape_of({1}), scalar);
  QueueData data;
  data.chunk = chunk_of(DType::kBF16, shape_of({2}), scalar);
  const TraceEvent events[] = {{1, 2, 3, 'B', "s"}};
  const std::vector<Bytes> seeds = {
      encoded([&](rt::Span<uint8_t> out) { return encode_hello(board_hello(), out); }),
      encoded([&](rt::Span<uint8_t> out) {
        return encode_log({'W', "careful"}, out);
      }),
      encoded([&](rt::Span<uint8_t> out) { return encode_queue_data(data, out); }),
      encoded([&](rt::Span<uint8_t> out) {
        return encode_infeed_credits({1, 2, 3}, out);
      }),
      encoded([&](rt::Span<uint8_t> out) { return encode_call(MessageKind::kHostCallRequest, call, out); }),
      encoded([&](rt::Span<uint8_t> out) {
        return encode_error({StatusCode::kAborted, 3, 4, "x"}, out);
      }),
      encoded([&](rt::Span<uint8_t> out) { return encode_trace(events, out); }),
  };
  Bytes out(kMaxPayload);
  const rt::Span<uint8_t> out_span(out.data(), out.size());
  const auto same = [&](rt::Result<size_t> size, const Bytes& payload) {
    REQUIRE(size.is_ok());
    REQUIRE(Bytes(out.begin(), out.begin() + *size) == payload);
  };
  size_t accepted = 0;
  for (int trial = 0; trial < 40000; ++trial) {
    Bytes payload = seeds[rng() % seeds.size()];
    const int mutations = 1 + rng() % 4;
    for (int m = 0; m < mutations; ++m) {
      const unsigned what = rng() % 4;
      if (what == 0 && !payload.empty()) payload[rng() % payload.size()] ^= uint8_t(1u << (rng() % 8));
      if (what == 1 && !payload.empty()) payload[rng() % payload.size()] = uint8_t(rng());
      if (what == 2) payload.resize(payload.empty() ? 0 : rng() % (payload.size() + 1));
      if (what == 3) payload.insert(payload.begin() + (payload.empty() ? 0 : rng() % payload.size()), uint8_t(rng()));
    }
    const rt::Span<const uint8_t> p = view(payload);
    if (auto m = parse_hello(p)) {
      ++accepted;
      same(encode_hello(*m, out_span), payload);
    }
    if (auto m = parse_log(p)) {
      ++accepted;
      same(encode_log(*m, out_span), payload);
    }
    if (auto m = parse_queue_data(p)) {
      ++accepted;
      same(encode_queue_data(*m, out_span), payload);
    }
    if (auto m = parse_infeed_credits(p)) {
      ++accepted;
      same(encode_infeed_credits(*m, out_span), payload);
    }
    for (MessageKind kind :
         {MessageKind::kHostCallRequest, MessageKind::kHostCallReply, MessageKind::kRun, MessageKind::kResult})
      if (auto m = parse_call(kind, p)) {
        ++accepted;
        same(encode_call(kind, *m, out_span), payload);
      }
    if (auto m = parse_error(p)) {
      ++accepted;
      same(encode_error(*m, out_span), payload);
    }
    TraceEvent parsed[4];
    if (auto count = parse_trace(p, parsed)) {
      ++accepted;
      same(encode_trace(rt::Span<const TraceEvent>(parsed, *count), out_span), payload);
    }
  }
  CHECK(accepted > 1000);  // the mutations leave plenty of valid payloads to re-encode
}

TEST_CASE("In-place host-call result round-trip and bad fields", "[link][message]") {
  const InPlaceResult result{0x01020304, 3, 2, DType::kI32, shape_of({2, 5})};
  const Bytes payload = encoded([&](rt::Span<uint8_t> out) { return encode_in_place_result(result, out); });
  // u32 id | u8 count | u8 index | u8 dtype | u8 rank | u64 dims
  REQUIRE(payload.size() == 4 + 4 + 16);
  CHECK(Bytes(payload.begin(), payload.begin() + 6) == Bytes({4, 3, 2, 1, 3, 2}));
  CHECK(payload[6] == 3);  // int32's link code (tensor_chunk.cpp's table: f32 1, f64 2, i32 3, ...)
  CHECK(payload[7] == 2);  // rank
  CHECK(payload[8] == 2);  // dims[0]
  CHECK(payload[16] == 5);
  auto parsed = parse_in_place_result(view(payload));
  REQUIRE(parsed.is_ok());
  CHECK(parsed->id == result.id);
  CHECK(parsed->tensor_count == 3);
  CHECK(parsed->tensor_index == 2);
  CHECK(parsed->dtype == DType::kI32);
  CHECK(parsed->shape.rank == 2);
  CHECK(parsed->shape.dims[1] == 5);
  Bytes bad = payload;
  bad[5] = 3;  // index == count
  CHECK_FALSE(parse_in_place_result(view(bad)).is_ok());
  CHECK_FALSE(parse_in_place_result(view(Bytes(payload.begin(), payload.end() - 1))).is_ok());  // truncated
  Bytes longer = payload;
  longer.push_back(0);
  CHECK_FALSE(parse_in_place_result(view(longer)).is_ok());  // trailing byte
  CHECK_FALSE(encode_error([&](rt::Span<uint8_t> out) {
                return encode_in_place_result({1, 0, 0, DType::kF32, shape_of({})}, out);
              }).empty());
}

TEST_CASE("In-place host-call argument round-trip and bad fields", "[link][message]") {
  const InPlaceArgument argument{9, 5, 2, 1, "link_sink", DType::kI8, shape_of({3}), 0x0000000140002000ull};
  const Bytes payload = encoded([&](rt::Span<uint8_t> out) { return encode_in_place_argument(argument, out); });
  // u32 id | u16 replica | u8 count | u8 index | str16 text | u8 dtype | u8 rank | u64 dims | u64 address
  REQUIRE(payload.size() == 4 + 2 + 2 + 2 + 9 + 2 + 8 + 8);
  CHECK(Bytes(payload.begin(), payload.begin() + 10) == Bytes({9, 0, 0, 0, 5, 0, 2, 1, 9, 0}));
  CHECK(text(rt::StringView(reinterpret_cast<const char*>(payload.data() + 10), 9)) == "link_sink");
  CHECK(payload[19] == 6);  // int8's link code
  CHECK(payload[20] == 1);  // rank
  CHECK(payload[21] == 3);  // dims[0]
  CHECK(Bytes(payload.end() - 8, payload.end()) == Bytes({0x00, 0x20, 0x00, 0x40, 0x01, 0, 0, 0}));
  auto parsed = parse_in_place_argument(view(payload));
  REQUIRE(parsed.is_ok());
  CHECK(parsed->id == 9);
  CHECK(parsed->replica == 5);
  CHECK(parsed->tensor_index == 1);
  CHECK(text(parsed->text) == "link_sink");
  CHECK(parsed->dtype == DType::kI8);
  CHECK(parsed->shape.dims[0] == 3);
  CHECK(parsed->address == 0x0000000140002000ull);
  CHECK_FALSE(parse_in_place_argument(view(Bytes(payload.begin(), payload.end() - 1))).is_ok());
  Bytes no_name = encoded([&](rt::Span<uint8_t> out) {
    InPlaceArgument named = argument;
    named.text = "x";
    return encode_in_place_argument(named, out);
  });
  no_name[8] = 0;  // text length 0, the name byte left as trailing garbage
  CHECK_FALSE(parse_in_place_argument(view(no_name)).is_ok());
}
