// Fuzzing the host-link receiver (runtime/link/transport/decoder.cpp) against a reference model: 100k random
// byte sequences (biased towards 0x00, the magic and COBS code bytes) and 100k valid streams of text
// and frames mutated by bit flips, deletions, insertions, duplications, truncation and stray
// delimiters, each fed in random chunks. For every sequence:
//   - the streaming decoder's text, frames, error reports and counters equal a whole-buffer model
//     (split at 0x00, classify each segment by its second byte, decode it, check the CRC explicitly);
//   - every delivered frame has a correct CRC (the model checks it independently of check_frame) and,
//     in mutated streams, equals a frame that was sent;
//   - every sent frame whose wire bytes (both delimiters included) survived intact is delivered.
// Running under -fsanitize=address,undefined shows it never reads or writes out of bounds (there a
// quarter of the sequences, the same seeds: trials.hpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "runtime/link/protocol/message_kind.hpp"
#include "runtime/link/transport/crc32.hpp"
#include "runtime/link/transport/decoder.hpp"
#include "trials.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using namespace rt::link;

rt::Span<const uint8_t> view(const Bytes& bytes) { return rt::Span<const uint8_t>(bytes.data(), bytes.size()); }

struct Received {
  FrameHeader header;
  Bytes payload;
  bool operator==(const Received& other) const {
    return header.kind == other.header.kind && header.channel == other.header.channel &&
           header.sequence == other.header.sequence && payload == other.payload;
  }
};

struct Outcome {
  std::string text;
  std::vector<Received> frames;
  std::vector<FrameError> errors;
};

class Recorder : public FrameSink {
 public:
  void on_text(rt::Span<const uint8_t> text) override { outcome.text.append(text.begin(), text.end()); }
  void on_frame(const FrameView& frame) override {
    outcome.frames.push_back({frame.header, Bytes(frame.payload.begin(), frame.payload.end())});
  }
  void on_bad_frame(FrameError error) override { outcome.errors.push_back(error); }
  Outcome outcome;
};

// ---------------------------------------------------------------- the reference model

uint32_t crc_field(const Bytes& body) {
  const size_t at = body.size() - 4;
  return uint32_t(body[at]) | uint32_t(body[at + 1]) << 8 | uint32_t(body[at + 2]) << 16 | uint32_t(body[at + 3]) << 24;
}

// What one segment (the bytes between two 0x00, or after the last one) yields; `closed` is false for
// the final segment, which end_of_stream() finishes.
void model_segment(const Bytes& segment, bool closed, Outcome& outcome) {
  if (segment.empty()) return;
  if (segment.size() < 2 || segment[1] != kFrameMagic) {
    outcome.text.append(segment.begin(), segment.end());
    return;
  }
  Bytes body(segment.size());
  CobsDecoder cobs(rt::Span<uint8_t>(body.data(), body.size()));
  bool fits = true;  // a decoding is never longer than its encoding
  for (uint8_t byte : segment) fits = cobs.put(byte) && fits;
  REQUIRE(fits);
  body.resize(cobs.size());
  if (body.size() > kMaxFrameBytes) return outcome.errors.push_back(FrameError::kOversized);
  if (!closed || !cobs.complete() || body.size() < 16) return outcome.errors.push_back(FrameError::kMalformed);
  if (crc_field(body) != crc32(rt::Span<const uint8_t>(body.data(), body.size() - 4)))
    return outcome.errors.push_back(FrameError::kCrc);
  const FrameCheck check = check_frame(view(body), kMessageKinds);
  REQUIRE(check.error != FrameError::kCrc);
  REQUIRE(check.error != FrameError::kOversized);
  if (check.error != FrameError::kNone) return outcome.errors.push_back(check.error);
  outcome.frames.push_back({check.frame.header, Bytes(check.frame.payload.begin(), check.frame.payload.end())});
}

Outcome model(const Bytes& stream) {
  Outcome outcome;
  Bytes segment;
  for (uint8_t byte : stream) {
    if (byte == 0) {
      model_segment(segment, true, outcome);
      segment.clear();
    } else {
      segment.push_back(byte);
    }
  }
  model_segment(segment, false, outcome);
  return outcome;
}

// ---------------------------------------------------------------- running the decoder

Outcome decode(const Bytes& stream, std::mt19937& rng) {
  Recorder recorder;
  Decoder decoder(recorder, rt::link::kMessageKinds);
  const unsigned max_chunk = rng() % 4 == 0 ? 1 : 1 + rng() % 300;
  size_t at = 0;
  while (at < stream.size()) {
    const size_t size = std::min<size_t>(stream.size() - at, 1 + rng() % max_chunk);
    decoder.feed(rt::Span<const uint8_t>(stream.data() + at, size));
    at += size;
  }
  decoder.end_of_stream();
  const DecoderCounters& counters = decoder.counters();
  const Outcome& outcome = recorder.outcome;
  REQUIRE(counters.frames_ok == outcome.frames.size());
  REQUIRE(counters.text_bytes == outcome.text.size());
  REQUIRE(counters.bad_frames() == outcome.errors.size());
  std::map<FrameError, uint64_t> by_error;
  for (FrameError error : outcome.errors) ++by_error[error];
  REQUIRE(counters.crc_errors == by_error[FrameError::kCrc]);
  REQUIRE(counters.oversized == by_error[FrameError::kOversized]);
  REQUIRE(counters.malformed == by_error[FrameError::kMalformed]);
  REQUIRE(counters.unknown_version == by_error[FrameError::kUnknownVersion]);
  REQUIRE(counters.unknown_kind == by_error[FrameError::kUnknownKind]);
  return outcome;
}

void require_same(const Outcome& got, const Outcome& want) {
  REQUIRE(got.text == want.text);
  REQUIRE(got.errors == want.errors);
  REQUIRE(got.frames.size() == want.frames.size());
  for (size_t i = 0; i < got.frames.size(); ++i) REQUIRE(got.frames[i] == want.frames[i]);
}

// ---------------------------------------------------------------- inputs

uint8_t interesting_byte(std::mt19937& rng) {
  const unsigned pick = rng() % 100;
  if (pick < 15) return 0x00;
  if (pick < 25) return kFrameMagic;
  if (pick < 33) return 0x04;
  if (pick < 38) return 0x01;
  if (pick < 43) return 0xFF;
  if (pick < 48) return 0x02;
  return static_cast<uint8_t>(rng());
}

struct Sent {
  Received frame;
  size_t begin;  // wire bytes [begin, end) in the unmutated stream
  size_t end;
};

struct Stream {
  Bytes bytes;
  std::vector<int64_t> origin;  // per byte: its index in the unmutated stream, -1 if new or changed
  std::vector<Sent> sent;
};

Stream valid_stream(std::mt19937& rng, uint32_t& sequence) {
  Stream stream;
  const unsigned segments = 1 + rng() % 6;
  for (unsigned s = 0; s < segments; ++s) {
    if (rng() % 2 == 0) {
      const size_t length = 1 + rng() % 60;
      for (size_t i = 0; i < length; ++i) stream.bytes.push_back(rng() % 12 == 0 ? '\n' : uint8_t(0x20 + rng() % 95));
      continue;
    }
    const unsigned size_class = rng() % 10;
    const size_t size = size_class < 6 ? rng() % 33 : size_class < 9 ? rng() % 513 : rng() % (kMaxPayload + 1);
    Received frame{message_header(static_cast<MessageKind>(1 + rng() % kLastMessageKind), uint16_t(rng()), sequence++),
                   Bytes(size)};
    for (uint8_t& byte : frame.payload) byte = rng() % 5 == 0 ? 0 : uint8_t(rng());
    Bytes wire(max_wire_frame_size(size));
    auto written = encode_frame(frame.header, view(frame.payload), rt::Span<uint8_t>(wire.data(), wire.size()));
    REQUIRE(written.is_ok());
    const size_t begin = stream.bytes.size();
    stream.bytes.insert(stream.bytes.end(), wire.begin(), wire.begin() + *written);
    stream.sent.push_back({frame, begin, stream.bytes.size()});
  }
  for (size_t i = 0; i < stream.bytes.size(); ++i) stream.origin.push_back(int64_t(i));
  return stream;
}

void mutate(Stream& stream, std::mt19937& rng) {
  Bytes& bytes = stream.bytes;
  std::vector<int64_t>& origin = stream.origin;
  const auto position = [&](size_t extra) { return bytes.empty() ? 0 : rng() % (bytes.size() + extra); };
  switch (rng() % 7) {
    case 0: {  // bit flip
      if (bytes.empty()) break;
      const size_t at = position(0);
      bytes[at] ^= uint8_t(1u << (rng() % 8));
      origin[at] = -1;
      break;
    }
    case 1: {  // deletion
      if (bytes.empty()) break;
      const size_t at = position(0);
      const size_t count = std::min<size_t>(bytes.size() - at, 1 + rng() % 8);
      bytes.erase(bytes.begin() + at, bytes.begin() + at + count);
      origin.erase(origin.begin() + at, origin.begin() + at + count);
      break;
    }
    case 2: {  // insertion of interesting bytes
      const size_t at = position(1);
      const size_t count = 1 + rng() % 8;
      for (size_t i = 0; i < count; ++i) {
        bytes.insert(bytes.begin() + at, interesting_byte(rng));
        origin.insert(origin.begin() + at, -1);
      }
      break;
    }
    case 3: {  // duplication of a range (may copy whole frames)
      if (bytes.empty()) break;
      const size_t from = position(0);
      const size_t count = std::min<size_t>(bytes.size() - from, 1 + rng() % 200);
      const size_t to = position(1);
      const Bytes copied(bytes.begin() + from, bytes.begin() + from + count);
      const std::vector<int64_t> copied_origin(origin.begin() + from, origin.begin() + from + count);
      bytes.insert(bytes.begin() + to, copied.begin(), copied.end());
      origin.insert(origin.begin() + to, copied_origin.begin(), copied_origin.end());
      break;
    }
    case 4: {  // truncation
      const size_t keep = position(1);
      bytes.resize(keep);
      origin.resize(keep);
      break;
    }
    case 5: {  // a stray delimiter or magic byte replacing one
      if (bytes.empty()) break;
      const size_t at = position(0);
      bytes[at] = rng() % 2 ? 0x00 : kFrameMagic;
      origin[at] = -1;
      break;
    }
    case 6: {  // a lost delimiter
      for (size_t tries = 0; tries < 8 && !bytes.empty(); ++tries) {
        const size_t at = position(0);
        if (bytes[at] != 0) continue;
        bytes.erase(bytes.begin() + at);
        origin.erase(origin.begin() + at);
        break;
      }
      break;
    }
  }
}

// Sent frames whose wire bytes appear unchanged and contiguous somewhere in the mutated stream.
std::vector<bool> intact_frames(const Stream& stream) {
  std::map<int64_t, size_t> frame_at;
  for (size_t f = 0; f < stream.sent.size(); ++f) frame_at[int64_t(stream.sent[f].begin)] = f;
  std::vector<bool> intact(stream.sent.size(), false);
  for (size_t p = 0; p < stream.origin.size(); ++p) {
    const auto found = frame_at.find(stream.origin[p]);
    if (found == frame_at.end()) continue;
    const Sent& sent = stream.sent[found->second];
    const size_t length = sent.end - sent.begin;
    if (p + length > stream.origin.size()) continue;
    bool whole = true;
    for (size_t k = 0; k < length && whole; ++k) whole = stream.origin[p + k] == int64_t(sent.begin + k);
    if (whole) intact[found->second] = true;
  }
  return intact;
}

}  // namespace

TEST_CASE("Fuzz: random byte sequences never crash the decoder and match the model", "[link][fuzz]") {
  std::mt19937 rng(0xC0B5);
  uint64_t frames = 0, bad = 0, text = 0;
  const uint64_t sequences = unit_tests::trials(100000);
  for (uint64_t trial = 0; trial < sequences; ++trial) {
    Bytes bytes(rng() % 400);
    for (uint8_t& byte : bytes) byte = interesting_byte(rng);
    const Outcome got = decode(bytes, rng);
    require_same(got, model(bytes));
    frames += got.frames.size();
    bad += got.errors.size();
    text += got.text.size();
  }
  CHECK(frames == 0);  // random bytes essentially never carry a valid CRC
  CHECK(bad > sequences);
  CHECK(text > 10 * sequences);
}

TEST_CASE("Fuzz: mutated streams deliver only sent frames and every intact one", "[link][fuzz]") {
  std::mt19937 rng(0xF4A3E);
  uint32_t sequence = 0;
  uint64_t delivered = 0, intact_count = 0, dropped = 0;
  const uint64_t streams = unit_tests::trials(100000);
  for (uint64_t trial = 0; trial < streams; ++trial) {
    Stream stream = valid_stream(rng, sequence);
    const uint32_t first_sequence = stream.sent.empty() ? 0 : stream.sent.front().frame.header.sequence;
    const bool clean = rng() % 10 == 0;
    const int mutations = clean ? 0 : 1 + rng() % 4;
    for (int m = 0; m < mutations; ++m) mutate(stream, rng);

    const Outcome got = decode(stream.bytes, rng);
    require_same(got, model(stream.bytes));
    std::map<uint32_t, size_t> delivered_by_sequence;
    for (const Received& frame : got.frames) {
      const uint32_t index = frame.header.sequence - first_sequence;
      REQUIRE(index < stream.sent.size());
      REQUIRE(frame == stream.sent[index].frame);
      ++delivered_by_sequence[frame.header.sequence];
    }
    const std::vector<bool> intact = intact_frames(stream);
    for (size_t f = 0; f < intact.size(); ++f) {
      if (!intact[f]) continue;
      ++intact_count;
      REQUIRE(delivered_by_sequence[stream.sent[f].frame.header.sequence] >= 1);
    }
    if (clean) {
      REQUIRE(got.errors.empty());
      REQUIRE(got.frames.size() == stream.sent.size());
    }
    delivered += got.frames.size();
    dropped += got.errors.size();
  }
  CHECK(delivered >= intact_count);
  CHECK(intact_count > streams / 2);
  CHECK(dropped > streams / 2);
}
