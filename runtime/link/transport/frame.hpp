// Host-link frames: one message with its kind, channel and sequence number, protected by a CRC-32
// and COBS-encoded so it contains no 0x00.
//
// Frame body (before COBS), all integers little-endian:
//   offset  size  field
//   0       1     magic 0xFA (a byte that neither ASCII nor UTF-8 text ever contains)
//   1       1     frame format version, 1
//   2       1     kind: opaque to the transport; the protocol layer above numbers its messages
//                 (message_kind.hpp there) and tells receivers which it knows (FrameKinds)
//   3       1     reserved, 0
//   4       2     channel: the core the message concerns (the protocol says which, per kind)
//   6       2     payload length n, at most kMaxPayload
//   8       4     sequence number: per direction, +1 per frame, wrapping (the endpoint checks it)
//   12      n     payload (opaque here; its layout per kind is the protocol's)
//   12+n    4     CRC-32 (crc32.hpp) of bytes [0, 12 + n); in every format version the last 4 bytes
// On the wire:  0x00, COBS(body), 0x00.  The leading 0x00 ends any console text before the frame,
// the trailing one ends the frame; decoder.hpp explains how a receiver tells text from frames.
// Because the magic is the first body byte and the reserved byte is 0, a v1 frame on the wire
// always starts 00 04 FA 01.
//
// kMaxPayload is 4 KiB: a receiver holds one whole frame (4112 bytes; small next to a core's RAM),
// a full frame occupies a 115200-baud UART for ~0.36 s (bounding how long a log line or host-call
// reply waits behind bulk data), and CRC-32 still detects every 1-, 2- and 3-bit error of a body
// this long (Hamming distance 4 up to 91607 bits; a corrupted COBS code byte moves zeros around,
// which the CRC misses with probability 2^-32). Larger tensors travel as offset-addressed chunks
// (the protocol's tensor chunks).
#pragma once
#include "cobs.hpp"

namespace rt::link {

inline constexpr uint8_t kFrameDelimiter = 0x00;
inline constexpr uint8_t kFrameMagic = 0xFA;
inline constexpr uint8_t kFrameVersion = 1;
inline constexpr size_t kFrameHeaderBytes = 12;
inline constexpr size_t kFrameCrcBytes = 4;
inline constexpr size_t kMaxPayload = 4096;
inline constexpr size_t kMaxFrameBytes = kFrameHeaderBytes + kMaxPayload + kFrameCrcBytes;
// Frames carried as records in shared memory (shm_ring.hpp) may be larger: no UART time to bound and
// no per-core receive buffer (records are read in place). The receiver announces what it takes in
// its hello (the protocol's); this is the most any side ever announces (it fits the u16 length field).
inline constexpr size_t kMaxRecordPayload = 61440;

// Bytes on the wire for a frame with `payload_size` payload bytes, at most (both delimiters included).
constexpr size_t max_wire_frame_size(size_t payload_size) {
  return 2 + cobs_max_encoded_size(kFrameHeaderBytes + payload_size + kFrameCrcBytes);
}
inline constexpr size_t kMaxWireFrameBytes = max_wire_frame_size(kMaxPayload);

// The kind bytes a receiver understands, first..last (the protocol layer passes its own,
// kMessageKinds in message_kind.hpp). A frame of any other kind is dropped as kUnknownKind.
struct FrameKinds {
  uint8_t first = 0;  // the defaults: every kind byte
  uint8_t last = 0xFF;
  constexpr bool contains(uint8_t kind) const { return kind >= first && kind <= last; }
};

struct FrameHeader {
  uint8_t kind = 0;  // opaque to the transport (see FrameKinds)
  uint16_t channel = 0;
  uint32_t sequence = 0;
};

// A checked frame. The payload points into the buffer the frame was checked in.
struct FrameView {
  FrameHeader header;
  Span<const uint8_t> payload;
};

// Why a frame was dropped (the decoder counts each class).
enum class FrameError : uint8_t {
  kNone,
  kMalformed,       // bad COBS, shorter than header + CRC, bad magic, length field mismatch, reserved != 0
  kCrc,             // CRC-32 mismatch
  kOversized,       // longer than kMaxFrameBytes (no delimiter in time)
  kUnknownVersion,  // CRC fine, format version not 1
  kUnknownKind,     // CRC fine, kind not among the receiver's FrameKinds
};

const char* frame_error_name(FrameError error);

// Writes 0x00, COBS(header, payload, CRC), 0x00 to `output`; returns the bytes written. Errors: a
// kind outside `kinds` (a sender passes its protocol's; by default any byte goes), a payload over
// kMaxPayload, an output smaller than max_wire_frame_size(payload.size()).
Result<size_t> encode_frame(const FrameHeader& header, Span<const uint8_t> payload, Span<uint8_t> output,
                            FrameKinds kinds = {});

// The frame body's parts around the payload, for transports that carry bodies as records instead of
// COBS on a byte stream (shm_ring.hpp): `head` gets the 12 header bytes, `tail` the CRC-32 of both.
// Errors as encode_frame's (a kind outside `kinds`, a payload over `max_payload`).
Status frame_body_parts(const FrameHeader& header, Span<const uint8_t> payload, Span<uint8_t> head, Span<uint8_t> tail,
                        size_t max_payload = kMaxPayload, FrameKinds kinds = {});

// Checks a decoded frame body (COBS already undone, no delimiters). `frame` is set iff error == kNone.
struct FrameCheck {
  FrameError error = FrameError::kNone;
  FrameView frame;
};
// Bodies with payloads over `max_payload` are kOversized, kinds outside `kinds` kUnknownKind.
FrameCheck check_frame(Span<const uint8_t> body, FrameKinds kinds, size_t max_payload = kMaxPayload);

}  // namespace rt::link
