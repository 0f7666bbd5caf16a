// Fuzz target: the host-link receiver (runtime/link/transport/decoder.hpp) that splits what a board writes into
// console text and frames, on the host (every byte of a UART or QEMU's serial line) and on the board
// (every byte the host sends). The input is the raw byte stream. Besides "no crash, no read or
// write outside its buffers", the decoder's promises are checked:
//   - chunking changes nothing: the stream fed whole and fed in pseudo-random chunks (1 byte up)
//     gives the same text, the same frames and the same drops, in the same order;
//   - a delivered frame is a good one: encoded again, it decodes to the same frame;
//   - the counters agree with what reached the sink.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/link/protocol/message_kind.hpp"
#include "runtime/link/transport/decoder.hpp"

namespace {

using rt::link::FrameError;
using rt::link::FrameView;

[[noreturn]] void broken(const char* promise) {
  std::fprintf(stderr, "frame_decoder: broken promise: %s\n", promise);
  std::abort();
}

// One thing the sink saw; consecutive text runs are merged (the decoder may cut text anywhere).
struct Event {
  enum Type { kText, kFrame, kBad } type;
  std::string text;         // kText: the text; kFrame: header fields and payload, as bytes
  FrameError error = FrameError::kNone;
  bool operator==(const Event& other) const { return type == other.type && text == other.text && error == other.error; }
};

std::string frame_bytes(const FrameView& frame) {
  std::string bytes;
  bytes += static_cast<char>(frame.header.kind);
  bytes.append(reinterpret_cast<const char*>(&frame.header.channel), 2);
  bytes.append(reinterpret_cast<const char*>(&frame.header.sequence), 4);
  bytes.append(reinterpret_cast<const char*>(frame.payload.data()), frame.payload.size());
  return bytes;
}

class Recorder final : public rt::link::FrameSink {
 public:
  std::vector<Event> events;
  void on_text(rt::Span<const uint8_t> text) override {
    if (text.empty()) broken("text runs are not empty");
    for (uint8_t byte : text)
      if (byte == 0) broken("text holds no 0x00");
    if (events.empty() || events.back().type != Event::kText) events.push_back({Event::kText, "", FrameError::kNone});
    events.back().text.append(reinterpret_cast<const char*>(text.data()), text.size());
  }
  void on_frame(const FrameView& frame) override { events.push_back({Event::kFrame, frame_bytes(frame), FrameError::kNone}); }
  void on_bad_frame(FrameError error) override { events.push_back({Event::kBad, "", error}); }
};

std::vector<Event> decode(const uint8_t* data, size_t size, bool chunked, rt::link::DecoderCounters& counters) {
  Recorder recorder;
  rt::link::Decoder decoder(recorder, rt::link::kMessageKinds);
  uint64_t state = size * 0x9E3779B97F4A7C15ull + (size ? data[0] : 0);
  for (size_t at = 0; at < size;) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const size_t chunk = chunked ? 1 + (state >> 33) % 97 : size;
    const size_t take = chunk < size - at ? chunk : size - at;
    decoder.feed(rt::Span<const uint8_t>(data + at, take));
    at += take;
  }
  decoder.end_of_stream();
  counters = decoder.counters();
  return std::move(recorder.events);
}

// A delivered frame, encoded again and decoded by a fresh decoder, is the same frame.
void check_reencodes(const Event& event) {
  const std::string& bytes = event.text;
  rt::link::FrameHeader header;
  header.kind = static_cast<uint8_t>(bytes[0]);
  __builtin_memcpy(&header.channel, bytes.data() + 1, 2);
  __builtin_memcpy(&header.sequence, bytes.data() + 3, 4);
  const rt::Span<const uint8_t> payload(reinterpret_cast<const uint8_t*>(bytes.data()) + 7, bytes.size() - 7);
  std::vector<uint8_t> wire(rt::link::max_wire_frame_size(payload.size()));
  const rt::Result<size_t> written = rt::link::encode_frame(header, payload, rt::Span<uint8_t>(wire.data(), wire.size()));
  if (!written.is_ok()) broken("a delivered frame can be encoded again");
  rt::link::DecoderCounters counters;
  const std::vector<Event> again = decode(wire.data(), written.value(), false, counters);
  if (again.size() != 1 || !(again[0] == event)) broken("a delivered frame decodes again to itself");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rt::link::DecoderCounters whole_counters, chunked_counters;
  const std::vector<Event> whole = decode(data, size, false, whole_counters);
  const std::vector<Event> chunked = decode(data, size, true, chunked_counters);
  if (whole != chunked) broken("chunking changes nothing");
  uint64_t frames = 0, bad = 0, text = 0;
  for (const Event& event : whole) {
    if (event.type == Event::kFrame) ++frames, check_reencodes(event);
    if (event.type == Event::kBad) ++bad;
    if (event.type == Event::kText) text += event.text.size();
  }
  if (frames != whole_counters.frames_ok || bad != whole_counters.bad_frames() || text != whole_counters.text_bytes)
    broken("the counters agree with what reached the sink");
  return 0;
}
