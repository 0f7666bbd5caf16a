// The host-link receiver (runtime/link/transport/decoder.cpp): frames fed whole, byte by byte and in every
// split; console text interleaved with frames comes out intact; each class of bad frame is dropped,
// counted and followed by a good frame that is delivered; the resynchronisation cases decoder.hpp
// promises (lost, stray and cut-in 0x00 bytes); and every message kind end to end.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "runtime/link/transport/crc32.hpp"
#include "runtime/link/transport/decoder.hpp"
#include "runtime/link/protocol/message.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using namespace rt::link;

rt::Span<const uint8_t> view(const Bytes& bytes) { return rt::Span<const uint8_t>(bytes.data(), bytes.size()); }
Bytes bytes_of(const std::string& text) { return Bytes(text.begin(), text.end()); }

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes all;
  for (const Bytes& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

struct Received {
  FrameHeader header;
  Bytes payload;
};

class Recorder : public FrameSink {
 public:
  void on_text(rt::Span<const uint8_t> text) override {
    REQUIRE(!text.empty());
    for (uint8_t byte : text) REQUIRE(byte != 0);
    this->text.append(text.begin(), text.end());
  }
  void on_frame(const FrameView& frame) override {
    frames.push_back({frame.header, Bytes(frame.payload.begin(), frame.payload.end())});
  }
  void on_bad_frame(FrameError error) override { errors.push_back(error); }

  std::string text;
  std::vector<Received> frames;
  std::vector<FrameError> errors;
};

Bytes frame(MessageKind kind, uint16_t channel, uint32_t sequence, const Bytes& payload) {
  Bytes wire(max_wire_frame_size(payload.size()));
  auto size = encode_frame(message_header(kind, channel, sequence), view(payload), rt::Span<uint8_t>(wire.data(), wire.size()));
  REQUIRE(size.is_ok());
  wire.resize(*size);
  return wire;
}

Bytes log_frame(uint32_t sequence, const std::string& text) {
  Bytes payload = bytes_of("I" + text);
  return frame(MessageKind::kLog, 1, sequence, payload);
}

// 00, COBS(body), 00 for a hand-made body.
Bytes wire_of_body(const Bytes& body) {
  Bytes encoded(cobs_max_encoded_size(body.size()));
  auto size = cobs_encode(view(body), rt::Span<uint8_t>(encoded.data(), encoded.size()));
  REQUIRE(size.is_ok());
  encoded.resize(*size);
  return concat({{0}, encoded, {0}});
}

Bytes body(uint8_t version, uint8_t kind, uint8_t reserved, const Bytes& payload, bool good_crc = true) {
  Bytes bytes = {kFrameMagic, version, kind, reserved, 0, 0, uint8_t(payload.size()), uint8_t(payload.size() >> 8),
                 1,           0,       0,    0};
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  uint32_t crc = crc32(view(bytes));
  if (!good_crc) crc ^= 0x00010000;
  for (int shift = 0; shift < 32; shift += 8) bytes.push_back(uint8_t(crc >> shift));
  return bytes;
}

enum class Feed { kWhole, kBytes, kRandomChunks };

void feed(Decoder& decoder, const Bytes& stream, Feed how, uint32_t seed = 1) {
  if (how == Feed::kWhole) {
    decoder.feed(view(stream));
  } else if (how == Feed::kBytes) {
    for (uint8_t byte : stream) decoder.feed(byte);
  } else {
    std::mt19937 rng(seed);
    size_t at = 0;
    while (at < stream.size()) {
      const size_t size = std::min<size_t>(stream.size() - at, rng() % 9);
      decoder.feed(rt::Span<const uint8_t>(stream.data() + at, size));
      at += size;
    }
  }
}

std::string payload_text(const Received& frame) { return std::string(frame.payload.begin() + 1, frame.payload.end()); }

}  // namespace

TEST_CASE("Decoder delivers a frame fed whole, byte by byte or in chunks", "[link][decoder]") {
  Bytes payload(3000);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = uint8_t(i * 7);  // zeros included
  const Bytes wire = frame(MessageKind::kOutfeedData, 513, 0xFFFFFFFF, payload);
  for (Feed how : {Feed::kWhole, Feed::kBytes, Feed::kRandomChunks}) {
    Recorder recorder;
    Decoder decoder(recorder, rt::link::kMessageKinds);
    feed(decoder, wire, how);
    REQUIRE(recorder.frames.size() == 1);
    CHECK(message_kind(recorder.frames[0].header) == MessageKind::kOutfeedData);
    CHECK(recorder.frames[0].header.channel == 513);
    CHECK(recorder.frames[0].header.sequence == 0xFFFFFFFFu);
    CHECK(recorder.frames[0].payload == payload);
    CHECK(recorder.text.empty());
    CHECK(decoder.counters().frames_ok == 1);
    CHECK(decoder.counters().bad_frames() == 0);
  }
  CHECK(sizeof(Decoder) < kMaxFrameBytes + 128);  // one frame buffer, a few words of state
}

TEST_CASE("Decoder splits console text from frames at every split point", "[link][decoder]") {
  const Bytes stream =
      concat({bytes_of("boot: 8 cores up\n"), log_frame(0, "first"), bytes_of("[c0 I] hello\n"), log_frame(1, "second"),
              log_frame(2, "third"), bytes_of("x"), log_frame(3, "fourth"),
              bytes_of("\xC3\xA9t\xC3\xA9 UTF-8 text is fine"), log_frame(4, "fifth"), bytes_of("tail")});
  const std::string expected_text = "boot: 8 cores up\n[c0 I] hello\nx\xC3\xA9t\xC3\xA9 UTF-8 text is finetail";
  const auto check = [&](Recorder& recorder, const Decoder& decoder) {
    CHECK(recorder.text == expected_text);
    REQUIRE(recorder.frames.size() == 5);
    const char* texts[] = {"first", "second", "third", "fourth", "fifth"};
    for (uint32_t i = 0; i < 5; ++i) {
      CHECK(recorder.frames[i].header.sequence == i);
      CHECK(payload_text(recorder.frames[i]) == texts[i]);
    }
    CHECK(decoder.counters().text_bytes == expected_text.size());
    CHECK(decoder.counters().bad_frames() == 0);
  };
  for (size_t split = 0; split <= stream.size(); ++split) {
    Recorder recorder;
    Decoder decoder(recorder, rt::link::kMessageKinds);
    decoder.feed(rt::Span<const uint8_t>(stream.data(), split));
    decoder.feed(rt::Span<const uint8_t>(stream.data() + split, stream.size() - split));
    check(recorder, decoder);
  }
  for (Feed how : {Feed::kBytes, Feed::kRandomChunks}) {
    Recorder recorder;
    Decoder decoder(recorder, rt::link::kMessageKinds);
    feed(decoder, stream, how, 77);
    check(recorder, decoder);
  }
}

TEST_CASE("Decoder delivers text as it arrives, holding at most a segment's first byte", "[link][decoder]") {
  Recorder recorder;
  Decoder decoder(recorder, rt::link::kMessageKinds);
  decoder.feed(bytes_of("a")[0]);
  CHECK(recorder.text.empty());  // a lone first byte could still be a frame's code byte
  decoder.feed(bytes_of("b")[0]);
  CHECK(recorder.text == "ab");
  decoder.feed(view(bytes_of("cd")));
  CHECK(recorder.text == "abcd");
  decoder.feed(view(Bytes{0, 'z'}));
  CHECK(recorder.text == "abcd");
  decoder.end_of_stream();  // the stream ended: the held byte was text
  CHECK(recorder.text == "abcdz");
  decoder.feed(view(Bytes{'q', 0}));  // a one-byte segment ends at its delimiter
  CHECK(recorder.text == "abcdzq");
  decoder.feed(view(Bytes{0, 0, 0}));  // empty segments carry nothing
  CHECK(recorder.text == "abcdzq");
  CHECK(decoder.counters().text_bytes == 6);
}

TEST_CASE("Decoder drops and counts every bad frame class and resynchronises on the next frame", "[link][decoder]") {
  const Bytes good = log_frame(9, "after");
  struct Case {
    const char* name;
    Bytes bad;
    uint64_t DecoderCounters::*counter;
    FrameError error;
  };
  Bytes oversized = {0, 0x04, kFrameMagic};
  oversized.insert(oversized.end(), 2 * kMaxWireFrameBytes, 0x41);
  oversized.push_back(0);
  Bytes long_payload(kMaxPayload + 1, 0x33);
  const std::vector<Case> cases = {
      {"crc mismatch", wire_of_body(body(1, 2, 0, bytes_of("Ipayload"), false)), &DecoderCounters::crc_errors,
       FrameError::kCrc},
      {"too short", wire_of_body(Bytes{kFrameMagic, 1, 2, 0, 0, 0}), &DecoderCounters::malformed,
       FrameError::kMalformed},
      {"magic only", Bytes{0, 0x02, kFrameMagic, 0}, &DecoderCounters::malformed, FrameError::kMalformed},
      {"cut COBS block", Bytes{0, 0x05, kFrameMagic, 0x01, 0x02, 0}, &DecoderCounters::malformed,
       FrameError::kMalformed},
      {"reserved byte set", wire_of_body(body(1, 2, 7, bytes_of("Ix"))), &DecoderCounters::malformed,
       FrameError::kMalformed},
      {"oversized", oversized, &DecoderCounters::oversized, FrameError::kOversized},
      {"payload over the maximum", wire_of_body(body(1, 5, 0, long_payload)), &DecoderCounters::oversized,
       FrameError::kOversized},
      {"unknown version", wire_of_body(body(2, 2, 0, bytes_of("Ix"))), &DecoderCounters::unknown_version,
       FrameError::kUnknownVersion},
      {"unknown kind", wire_of_body(body(1, 200, 0, bytes_of("Ix"))), &DecoderCounters::unknown_kind,
       FrameError::kUnknownKind},
  };
  for (const Case& c : cases) {
    for (Feed how : {Feed::kWhole, Feed::kBytes, Feed::kRandomChunks}) {
      INFO(c.name << ", feed mode " << int(how));
      Recorder recorder;
      Decoder decoder(recorder, rt::link::kMessageKinds);
      feed(decoder, concat({c.bad, good, c.bad, bytes_of("text\n"), c.bad, good}), how);
      CHECK(decoder.counters().*c.counter == 3);
      CHECK(decoder.counters().bad_frames() == 3);
      CHECK(recorder.errors == std::vector<FrameError>(3, c.error));
      REQUIRE(recorder.frames.size() == 2);
      CHECK(payload_text(recorder.frames[1]) == "after");
      CHECK(recorder.text == "text\n");
      CHECK(decoder.counters().frames_ok == 2);
    }
  }
}

TEST_CASE("Decoder recovers from lost, stray and cut-in delimiters", "[link][decoder]") {
  const Bytes a = log_frame(1, "frame a");
  const Bytes b = log_frame(2, "frame b");
  const Bytes a_body(a.begin() + 1, a.end() - 1);

  SECTION("lost leading 0x00: that frame becomes text, the next one arrives") {
    Recorder recorder;
    Decoder decoder(recorder, rt::link::kMessageKinds);
    feed(decoder, concat({bytes_of("abc\n"), Bytes(a.begin() + 1, a.end()), bytes_of("def\n"), b}), Feed::kWhole);
    REQUIRE(recorder.frames.size() == 1);
    CHECK(payload_text(recorder.frames[0]) == "frame b");
    CHECK(recorder.text.substr(0, 4) == "abc\n");
    CHECK(recorder.text.substr(recorder.text.size() - 4) == "def\n");
    CHECK(decoder.counters().bad_frames() == 0);
  }
  SECTION("lost trailing 0x00: the frame swallows the following text and is dropped") {
    Recorder recorder;
    Decoder decoder(recorder, rt::link::kMessageKinds);
    feed(decoder, concat({Bytes(a.begin(), a.end() - 1), bytes_of("def\n"), b, bytes_of("ghi\n")}), Feed::kWhole);
    REQUIRE(recorder.frames.size() == 1);
    CHECK(payload_text(recorder.frames[0]) == "frame b");
    CHECK(recorder.text == "ghi\n");
    CHECK(decoder.counters().bad_frames() == 1);
  }
  SECTION("stray 0x00 in text splits it into two text segments") {
    Recorder recorder;
    Decoder decoder(recorder, rt::link::kMessageKinds);
    feed(decoder, concat({bytes_of("ab"), {0}, bytes_of("cd\n"), {0}, bytes_of("e"), {0, 0}, b}), Feed::kBytes);
    CHECK(recorder.text == "abcd\ne");
    CHECK(recorder.frames.size() == 1);
    CHECK(decoder.counters().bad_frames() == 0);
  }
  SECTION("stray 0x00 inside a frame cuts it; the next frame arrives") {
    Bytes cut = a;
    cut.insert(cut.begin() + 6, 0);
    Recorder recorder;
    Decoder decoder(recorder, rt::link::kMessageKinds);
    feed(decoder, concat({cut, b}), Feed::kWhole);
    REQUIRE(recorder.frames.size() == 1);
    CHECK(payload_text(recorder.frames[0]) == "frame b");
    CHECK(decoder.counters().malformed == 1);
  }
  SECTION("a panic message cutting into a frame: 0x00 first, then its text") {
    Recorder recorder;
    Decoder decoder(recorder, rt::link::kMessageKinds);
    feed(decoder, concat({Bytes(a.begin(), a.begin() + 8), {0}, bytes_of("PANIC: core 3 fault\n"), b}), Feed::kWhole);
    CHECK(recorder.text == "PANIC: core 3 fault\n");
    REQUIRE(recorder.frames.size() == 1);
    CHECK(payload_text(recorder.frames[0]) == "frame b");
    CHECK(decoder.counters().malformed == 1);
  }
  SECTION("the stream ends inside a frame") {
    Recorder recorder;
    Decoder decoder(recorder, rt::link::kMessageKinds);
    feed(decoder, concat({b, Bytes(a.begin(), a.begin() + 10)}), Feed::kWhole);
    CHECK(decoder.counters().malformed == 0);
    decoder.end_of_stream();
    CHECK(decoder.counters().malformed == 1);
    feed(decoder, b, Feed::kWhole);
    CHECK(recorder.frames.size() == 2);
  }
  SECTION("attaching in the middle of a frame") {
    Recorder recorder;
    Decoder decoder(recorder, rt::link::kMessageKinds);
    feed(decoder, concat({Bytes(a.begin() + 5, a.end()), b}), Feed::kWhole);
    REQUIRE(recorder.frames.size() == 1);
    CHECK(payload_text(recorder.frames[0]) == "frame b");
  }
}

TEST_CASE("Every message kind survives encode, frame, decode and parse", "[link][decoder]") {
  Bytes payloads(kMaxPayload);
  const rt::Span<uint8_t> out(payloads.data(), payloads.size());
  std::vector<Bytes> stream_parts;
  const auto add = [&](MessageKind kind, rt::Result<size_t> size) {
    REQUIRE(size.is_ok());
    stream_parts.push_back(
        frame(kind, 3, uint32_t(stream_parts.size()), Bytes(payloads.begin(), payloads.begin() + *size)));
    stream_parts.push_back(bytes_of("[c0 I] between frames\n"));
  };
  Hello hello;
  hello.role = PeerRole::kBoard;
  hello.core_count = 4;
  hello.mesh_shape[0] = hello.mesh_shape[1] = hello.mesh_shape[2] = 1;
  hello.mesh_shape[3] = 4;
  hello.board = "raspi3b";
  add(MessageKind::kHello, encode_hello(hello, out));
  add(MessageKind::kLog, encode_log({'E', "core 2: deadline exceeded"}, out));
  const Bytes tensor = {0, 0, 0x80, 0x3F, 0, 0, 0, 0x40};
  QueueData data;
  data.queue = 2;
  data.chunk.dtype = rt::DType::kF32;
  const int64_t dims[] = {2};
  data.chunk.shape = *rt::Shape::make(dims);
  data.chunk.data = view(tensor);
  add(MessageKind::kInfeedData, encode_queue_data(data, out));
  add(MessageKind::kInfeedCredits, encode_infeed_credits({2, 10, 4096}, out));
  add(MessageKind::kOutfeedData, encode_queue_data(data, out));
  CallMessage call;
  call.id = 5;
  call.text = "to_number";
  call.tensor_count = 1;
  call.chunk = data.chunk;
  add(MessageKind::kHostCallRequest, encode_call(MessageKind::kHostCallRequest, call, out));
  call.text = "";
  add(MessageKind::kHostCallReply, encode_call(MessageKind::kHostCallReply, call, out));
  call.text = "train_step";
  add(MessageKind::kRun, encode_call(MessageKind::kRun, call, out));
  call.text = "";
  add(MessageKind::kResult, encode_call(MessageKind::kResult, call, out));
  add(MessageKind::kError, encode_error({rt::StatusCode::kUnimplemented, 8, 3, "run is not supported"}, out));
  const TraceEvent events[] = {{10, 20, 1, 'X', "matmul"}};
  add(MessageKind::kTrace, encode_trace(events, out));
  add(MessageKind::kHostCallReplyInPlace, encode_in_place_result({5, 1, 0, rt::DType::kF32, data.chunk.shape}, out));
  add(MessageKind::kInfeedInPlace, encode_infeed_in_place({2, 41}, out));
  add(MessageKind::kHostCallArgumentInPlace,
      encode_in_place_argument({5, 2, 1, 0, "to_number", rt::DType::kF32, data.chunk.shape, 0x40001000}, out));
  add(MessageKind::kPod, encode_pod_info({1, 3}, out));
  add(MessageKind::kInfeedSpec, encode_infeed_spec({2, 2, 1, rt::DType::kI32, data.chunk.shape}, out));

  Bytes stream;
  for (const Bytes& part : stream_parts) stream.insert(stream.end(), part.begin(), part.end());
  Recorder recorder;
  Decoder decoder(recorder, rt::link::kMessageKinds);
  feed(decoder, stream, Feed::kRandomChunks, 3);
  REQUIRE(recorder.frames.size() == kLastMessageKind);
  for (size_t i = 0; i < recorder.frames.size(); ++i) {
    const Received& got = recorder.frames[i];
    CHECK(got.header.sequence == 2 * i);
    CHECK(got.header.channel == 3);
    CHECK(static_cast<size_t>(got.header.kind) == i + 1);
    const rt::Span<const uint8_t> payload = view(got.payload);
    switch (message_kind(got.header)) {
      case MessageKind::kHello: CHECK(parse_hello(payload)->core_count == 4); break;
      case MessageKind::kLog: CHECK(parse_log(payload)->level == 'E'); break;
      case MessageKind::kInfeedData:
      case MessageKind::kOutfeedData: CHECK(parse_queue_data(payload)->chunk.data.size() == 8); break;
      case MessageKind::kInfeedCredits: CHECK(parse_infeed_credits(payload)->granted_bytes == 4096); break;
      case MessageKind::kHostCallRequest:
      case MessageKind::kHostCallReply:
      case MessageKind::kRun:
      case MessageKind::kResult: CHECK(parse_call(message_kind(got.header), payload)->id == 5); break;
      case MessageKind::kError: CHECK(parse_error(payload)->code == rt::StatusCode::kUnimplemented); break;
      case MessageKind::kHostCallArgumentInPlace: CHECK(parse_in_place_argument(payload)->address == 0x40001000); break;
      case MessageKind::kHostCallReplyInPlace: CHECK(parse_in_place_result(payload)->id == 5); break;
      case MessageKind::kInfeedInPlace: CHECK(parse_infeed_in_place(payload)->tuple == 41); break;
      case MessageKind::kPod: CHECK(parse_pod_info(payload)->num_tasks == 3); break;
      case MessageKind::kInfeedSpec: CHECK(parse_infeed_spec(payload)->dtype == rt::DType::kI32); break;
      case MessageKind::kTrace: {
        TraceEvent parsed[2];
        CHECK(*parse_trace(payload, parsed) == 1);
        break;
      }
    }
  }
  std::string expected_text;
  for (size_t i = 0; i < kLastMessageKind; ++i) expected_text += "[c0 I] between frames\n";
  CHECK(recorder.text == expected_text);
}
