// Frame encoding (header, payload and CRC streamed through the COBS encoder) and frame checking.
#include "frame.hpp"

#include "crc32.hpp"
#include "wire.hpp"

namespace rt::link {
namespace {

void write_header(const FrameHeader& header, size_t payload_size, Span<uint8_t> out) {
  WireWriter writer(out);
  writer.u8(kFrameMagic);
  writer.u8(kFrameVersion);
  writer.u8(header.kind);
  writer.u8(0);
  writer.u16(header.channel);
  writer.u16(static_cast<uint16_t>(payload_size));
  writer.u32(header.sequence);
}

void write_crc(uint32_t crc, Span<uint8_t> out) {
  WireWriter writer(out);
  writer.u32(crc);
}

}  // namespace

const char* frame_error_name(FrameError error) {
  switch (error) {
    case FrameError::kNone: return "none";
    case FrameError::kMalformed: return "malformed";
    case FrameError::kCrc: return "crc mismatch";
    case FrameError::kOversized: return "oversized";
    case FrameError::kUnknownVersion: return "unknown version";
    case FrameError::kUnknownKind: return "unknown kind";
  }
  return "unknown";
}

Status frame_body_parts(const FrameHeader& header, Span<const uint8_t> payload, Span<uint8_t> head, Span<uint8_t> tail,
                        size_t max_payload, FrameKinds kinds) {
  if (!kinds.contains(header.kind))
    return invalid_argument("frame kind {} is not one the link knows ({}..{})", static_cast<unsigned>(header.kind),
                            static_cast<unsigned>(kinds.first), static_cast<unsigned>(kinds.last));
  if (payload.size() > max_payload || payload.size() > 0xFFFF)
    return invalid_argument("a frame payload (kind {}) of {} bytes exceeds the link maximum of {} bytes",
                            static_cast<unsigned>(header.kind), payload.size(), max_payload);
  if (head.size() < kFrameHeaderBytes || tail.size() < kFrameCrcBytes)
    return invalid_argument("frame body parts need {} + {} bytes", kFrameHeaderBytes, kFrameCrcBytes);
  write_header(header, payload.size(), head);
  write_crc(crc32_update(crc32(head.subspan(0, kFrameHeaderBytes)), payload), tail);
  return Status::ok();
}

Result<size_t> encode_frame(const FrameHeader& header, Span<const uint8_t> payload, Span<uint8_t> output,
                            FrameKinds kinds) {
  uint8_t head[kFrameHeaderBytes];
  uint8_t tail[kFrameCrcBytes];
  RT_RETURN_IF_ERROR(frame_body_parts(header, payload, head, tail, kMaxPayload, kinds));
  const size_t needed = max_wire_frame_size(payload.size());
  if (output.size() < needed)
    return invalid_argument("a frame with {} payload bytes needs an output of {} bytes, got {}", payload.size(), needed,
                            output.size());
  output[0] = kFrameDelimiter;
  CobsEncoder encoder(output.subspan(1, needed - 2));
  encoder.put(head);
  encoder.put(payload);
  encoder.put(tail);
  Result<size_t> encoded = encoder.finish();
  if (!encoded) return encoded.status();
  output[1 + *encoded] = kFrameDelimiter;
  return 2 + *encoded;
}

FrameCheck check_frame(Span<const uint8_t> body, FrameKinds kinds, size_t max_payload) {
  FrameCheck check;
  if (body.size() > kFrameHeaderBytes + max_payload + kFrameCrcBytes) return {FrameError::kOversized, {}};
  if (body.size() < kFrameHeaderBytes + kFrameCrcBytes) return {FrameError::kMalformed, {}};
  const size_t covered = body.size() - kFrameCrcBytes;
  WireReader crc_reader(body.subspan(covered));
  if (crc_reader.u32() != crc32(body.subspan(0, covered))) return {FrameError::kCrc, {}};

  WireReader reader(body.subspan(0, kFrameHeaderBytes));
  const uint8_t magic = reader.u8();
  const uint8_t version = reader.u8();
  const uint8_t kind = reader.u8();
  const uint8_t reserved = reader.u8();
  check.frame.header.channel = reader.u16();
  const uint16_t payload_size = reader.u16();
  check.frame.header.sequence = reader.u32();
  if (magic != kFrameMagic) return {FrameError::kMalformed, {}};
  if (version != kFrameVersion) return {FrameError::kUnknownVersion, {}};
  if (reserved != 0 || payload_size != covered - kFrameHeaderBytes) return {FrameError::kMalformed, {}};
  if (!kinds.contains(kind)) return {FrameError::kUnknownKind, {}};
  check.frame.header.kind = kind;
  check.frame.payload = body.subspan(kFrameHeaderBytes, payload_size);
  return check;
}

}  // namespace rt::link
