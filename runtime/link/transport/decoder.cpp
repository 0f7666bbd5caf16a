// The host-link receiver's state machine (the segment rules are in decoder.hpp). Text is handed to
// the sink in runs: one call per stretch of text inside each feed() chunk.
#include "decoder.hpp"

namespace rt::link {

void Decoder::deliver_text(Span<const uint8_t> text) {
  if (text.empty()) return;
  counters_.text_bytes += text.size();
  sink_.on_text(text);
}

void Decoder::start_frame(uint8_t code_byte, uint8_t magic) {
  cobs_.reset();
  cobs_.put(code_byte);  // two bytes always fit: the buffer holds kMaxFrameBytes
  cobs_.put(magic);
  state_ = State::kFrame;
}

void DecoderCounters::count(FrameError error) {
  switch (error) {
    case FrameError::kNone: return;
    case FrameError::kCrc: ++crc_errors; return;
    case FrameError::kOversized: ++oversized; return;
    case FrameError::kMalformed: ++malformed; return;
    case FrameError::kUnknownVersion: ++unknown_version; return;
    case FrameError::kUnknownKind: ++unknown_kind; return;
  }
}

void DecoderCounters::add(const DecoderCounters& other) {
  frames_ok += other.frames_ok;
  crc_errors += other.crc_errors;
  oversized += other.oversized;
  malformed += other.malformed;
  unknown_version += other.unknown_version;
  unknown_kind += other.unknown_kind;
  text_bytes += other.text_bytes;
}

void Decoder::drop_frame(FrameError error) {
  if (error == FrameError::kNone) return;
  counters_.count(error);
  sink_.on_bad_frame(error);
}

void Decoder::finish_frame() {
  if (!cobs_.complete()) {
    drop_frame(FrameError::kMalformed);
    return;
  }
  const FrameCheck check = check_frame(cobs_.decoded(), kinds_);
  if (check.error != FrameError::kNone) {
    drop_frame(check.error);
    return;
  }
  ++counters_.frames_ok;
  sink_.on_frame(check.frame);
}

void Decoder::feed(Span<const uint8_t> bytes) {
  size_t text_start = 0;  // start of the text run in `bytes` while in kText
  for (size_t i = 0; i < bytes.size(); ++i) {
    const uint8_t byte = bytes[i];
    switch (state_) {
      case State::kSegmentStart:
        if (byte != kFrameDelimiter) {
          held_ = byte;
          state_ = State::kSecondByte;
        }
        break;
      case State::kSecondByte:
        if (byte == kFrameDelimiter) {  // a one-byte text segment
          deliver_text(Span<const uint8_t>(&held_, 1));
          state_ = State::kSegmentStart;
        } else if (byte == kFrameMagic) {
          start_frame(held_, byte);
        } else {
          state_ = State::kText;
          if (i > 0) {
            text_start = i - 1;  // the held byte is the previous one of this chunk
          } else {
            deliver_text(Span<const uint8_t>(&held_, 1));
            text_start = i;
          }
        }
        break;
      case State::kText:
        if (byte == kFrameDelimiter) {
          deliver_text(bytes.subspan(text_start, i - text_start));
          state_ = State::kSegmentStart;
        }
        break;
      case State::kFrame:
        if (byte == kFrameDelimiter) {
          finish_frame();
          state_ = State::kSegmentStart;
        } else if (!cobs_.put(byte)) {  // the decoded frame would exceed kMaxFrameBytes
          drop_frame(FrameError::kOversized);
          state_ = State::kSkip;
        }
        break;
      case State::kSkip:
        if (byte == kFrameDelimiter) state_ = State::kSegmentStart;
        break;
    }
  }
  if (state_ == State::kText) deliver_text(bytes.subspan(text_start));
}

void Decoder::end_of_stream() {
  if (state_ == State::kSecondByte) deliver_text(Span<const uint8_t>(&held_, 1));
  if (state_ == State::kFrame) drop_frame(FrameError::kMalformed);
  state_ = State::kSegmentStart;
}

}  // namespace rt::link
