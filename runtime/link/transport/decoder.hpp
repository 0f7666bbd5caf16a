// The host-link receiver: splits a byte stream that carries both console text and frames, decodes
// the frames as their bytes arrive, and hands text, good frames and the reasons for bad ones to a
// sink. It never allocates, never buffers more than one decoded frame (kMaxFrameBytes) and takes
// any bytes at all, in chunks of any size, including one at a time.
//
// Telling text from frames. Console text never contains 0x00, and a sender writes 0x00 before and
// after every frame (frame.hpp). So the stream is a series of segments separated by 0x00, and each
// segment is either all text or all frame:
//   - a segment whose second byte is kFrameMagic (0xFA) is a frame (its first byte is the COBS code
//     byte, its second the first byte of the body: the magic). 0xFA occurs in neither ASCII nor
//     UTF-8 text, so no text segment looks like this;
//   - any other non-empty segment is text; empty segments (00 00) carry nothing.
// The decision takes at most two bytes, so text is delivered as it arrives (a segment's first byte
// waits for its second), never buffered up to a delimiter. No state carries over a 0x00, so any lost,
// corrupted or extra byte affects only the segments it touches and the receiver is back in step at
// the next 0x00: a lost leading 0x00 turns that frame into text; a lost trailing 0x00 merges the frame
// with the next segment (dropped: CRC error, or oversized if no 0x00 comes within kMaxFrameBytes of
// decoded bytes, after which bytes are skipped up to the next 0x00); a stray 0x00 in text splits it
// in two text segments; a stray 0x00 inside a frame cuts it (the first part is dropped as malformed,
// the rest is shown as text). A scheme where frames sit between every first and second 0x00 was
// rejected: one lost 0x00 would swap text and frames for good.
//
// Rules for senders: console text has no 0x00 and no 0xFA; a frame's bytes are written without text
// in between (one lock for the UART); a writer that must cut in (a panic message) writes 0x00 first,
// which ends any frame in progress (dropped as malformed) and starts a text segment.
//
// A good frame is one whose COBS decodes, whose CRC-32 matches and whose header checks (check_frame);
// anything else is counted and reported, never delivered. Only the frame format is known here: kinds
// and payloads are the protocol layer's.
#pragma once
#include "frame.hpp"

namespace rt::link {

struct DecoderCounters {
  uint64_t frames_ok = 0;
  uint64_t crc_errors = 0;
  uint64_t oversized = 0;
  uint64_t malformed = 0;  // bad COBS, too short, bad header fields, cut by end of stream
  uint64_t unknown_version = 0;
  uint64_t unknown_kind = 0;
  uint64_t text_bytes = 0;

  uint64_t bad_frames() const { return crc_errors + oversized + malformed + unknown_version + unknown_kind; }
  // Counts one dropped frame in its class (kNone counts nothing).
  void count(FrameError error);
  // Adds another receiver's counts (a session fed by both a byte stream and a frame transport).
  void add(const DecoderCounters& other);
};

// Receives what the decoder finds. Views are valid only during the call.
class FrameSink {
 public:
  // A run of console text (no 0x00); a text segment may arrive in several runs.
  virtual void on_text(Span<const uint8_t> text) = 0;
  virtual void on_frame(const FrameView& frame) = 0;
  // A dropped frame (already counted).
  virtual void on_bad_frame(FrameError error) { (void)error; }

 protected:
  ~FrameSink() = default;
};

class Decoder {
 public:
  // Frames of kinds outside `kinds` are dropped as kUnknownKind.
  Decoder(FrameSink& sink, FrameKinds kinds) : sink_(sink), kinds_(kinds), cobs_(Span<uint8_t>(body_, kMaxFrameBytes)) {}
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  void feed(Span<const uint8_t> bytes);
  void feed(uint8_t byte) { feed(Span<const uint8_t>(&byte, 1)); }
  // The stream ended (or the link was reopened): a held text byte is delivered, a frame in
  // progress is dropped as malformed, and the next byte starts a new segment.
  void end_of_stream();

  const DecoderCounters& counters() const { return counters_; }

 private:
  enum class State : uint8_t {
    kSegmentStart,  // after a 0x00 (or at the start): the next byte opens a segment
    kSecondByte,    // one byte of the segment held, the next decides text or frame
    kText,
    kFrame,
    kSkip,  // an oversized frame: drop bytes up to the next 0x00
  };

  void deliver_text(Span<const uint8_t> text);
  void start_frame(uint8_t code_byte, uint8_t magic);
  void finish_frame();
  void drop_frame(FrameError error);

  FrameSink& sink_;
  FrameKinds kinds_;
  State state_ = State::kSegmentStart;
  uint8_t held_ = 0;  // the first byte of a segment while in kSecondByte
  DecoderCounters counters_;
  CobsDecoder cobs_;
  uint8_t body_[kMaxFrameBytes];
};

}  // namespace rt::link
