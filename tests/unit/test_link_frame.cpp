// Frames (runtime/link/transport/frame.cpp): the exact byte layout of an encoded frame, the size limits, and
// check_frame's classification of every kind of bad frame body.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/link/transport/crc32.hpp"
#include "runtime/link/protocol/message_kind.hpp"
#include "runtime/link/transport/frame.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using namespace rt::link;

rt::Span<const uint8_t> view(const Bytes& bytes) { return rt::Span<const uint8_t>(bytes.data(), bytes.size()); }

// Checks a body the way the protocol's receivers do: its message kinds are the known ones.
FrameCheck check_frame(rt::Span<const uint8_t> body) { return rt::link::check_frame(body, kMessageKinds); }

Bytes encode(const FrameHeader& header, const Bytes& payload) {
  Bytes wire(max_wire_frame_size(payload.size()));
  auto size = encode_frame(header, view(payload), rt::Span<uint8_t>(wire.data(), wire.size()));
  INFO(size.status().c_str());
  REQUIRE(size.is_ok());
  wire.resize(*size);
  return wire;
}

// The decoded body of a wire frame (without its delimiters).
Bytes body_of(const Bytes& wire) {
  REQUIRE(wire.size() >= 2);
  REQUIRE(wire.front() == 0);
  REQUIRE(wire.back() == 0);
  Bytes body(wire.size());
  auto size = cobs_decode(rt::Span<const uint8_t>(wire.data() + 1, wire.size() - 2),
                          rt::Span<uint8_t>(body.data(), body.size()));
  REQUIRE(size.is_ok());
  body.resize(*size);
  return body;
}

void append_u32(Bytes& bytes, uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<uint8_t>(value >> shift));
}

// A body with arbitrary header bytes and a correct CRC.
Bytes raw_body(uint8_t magic, uint8_t version, uint8_t kind, uint8_t reserved, uint16_t length_field,
               const Bytes& payload) {
  Bytes body = {magic, version, kind, reserved, 0x02, 0x00, uint8_t(length_field), uint8_t(length_field >> 8),
                9,     0,       0,    0};
  body.insert(body.end(), payload.begin(), payload.end());
  append_u32(body, crc32(view(body)));
  return body;
}

}  // namespace

TEST_CASE("Frame byte layout: 00, COBS(header, payload, CRC-32), 00", "[link][frame]") {
  const Bytes payload = {0x10, 0x00, 0x20, 0xFA};
  const Bytes wire = encode(message_header(MessageKind::kLog, 0x0302, 0xA1B2C3D4), payload);
  CHECK(wire[0] == 0x00);
  CHECK(wire[1] == 0x04);  // the COBS code of the first block: magic, version, kind, then reserved 0
  CHECK(wire[2] == kFrameMagic);
  CHECK(wire[3] == 0x01);
  CHECK(wire.back() == 0x00);
  for (size_t i = 1; i + 1 < wire.size(); ++i) CHECK(wire[i] != 0);

  const Bytes body = body_of(wire);
  Bytes expected = {0xFA, 0x01, 0x02, 0x00, 0x02, 0x03, 0x04, 0x00, 0xD4, 0xC3, 0xB2, 0xA1, 0x10, 0x00, 0x20, 0xFA};
  append_u32(expected, crc32(view(expected)));
  CHECK(body == expected);

  const FrameCheck check = check_frame(view(body));
  REQUIRE(check.error == FrameError::kNone);
  CHECK(message_kind(check.frame.header) == MessageKind::kLog);
  CHECK(check.frame.header.channel == 0x0302);
  CHECK(check.frame.header.sequence == 0xA1B2C3D4u);
  CHECK(Bytes(check.frame.payload.begin(), check.frame.payload.end()) == payload);
}

TEST_CASE("Frame size limits", "[link][frame]") {
  CHECK(kMaxFrameBytes == 4112);
  CHECK(kMaxWireFrameBytes == 2 + 4112 + 17);
  const Bytes largest(kMaxPayload, 0xAB);  // no zeros: the worst case for COBS
  const Bytes wire = encode(message_header(MessageKind::kOutfeedData, 1, 2), largest);
  CHECK(wire.size() <= kMaxWireFrameBytes);
  CHECK(check_frame(view(body_of(wire))).error == FrameError::kNone);

  const Bytes too_big(kMaxPayload + 1, 0xAB);
  Bytes out(kMaxWireFrameBytes + 64);
  CHECK_FALSE(encode_frame({}, view(too_big), rt::Span<uint8_t>(out.data(), out.size())).is_ok());
  const Bytes small(10, 1);
  CHECK_FALSE(encode_frame({}, view(small), rt::Span<uint8_t>(out.data(), max_wire_frame_size(10) - 1)).is_ok());
  CHECK(encode_frame({}, view(small), rt::Span<uint8_t>(out.data(), max_wire_frame_size(10))).is_ok());
  CHECK(encode(message_header(MessageKind::kHello, 0, 0), {}).size() <= max_wire_frame_size(0));
  // Senders refuse kinds their protocol does not know, receivers drop them; the transport itself
  // carries any kind byte.
  for (const uint8_t kind : {uint8_t{0}, uint8_t(kLastMessageKind + 1)}) {
    const FrameHeader header{kind, 0, 0};
    CHECK_FALSE(encode_frame(header, view(small), rt::Span<uint8_t>(out.data(), out.size()), kMessageKinds).is_ok());
    CHECK(check_frame(view(body_of(encode({kind, 0, 0}, small)))).error == FrameError::kUnknownKind);
    CHECK(rt::link::check_frame(view(body_of(encode({kind, 0, 0}, small))), FrameKinds{}).error == FrameError::kNone);
  }
}

TEST_CASE("check_frame classifies every bad body", "[link][frame]") {
  const Bytes payload = {1, 2, 3};
  const Bytes good = raw_body(0xFA, 1, 2, 0, 3, payload);
  CHECK(check_frame(view(good)).error == FrameError::kNone);

  Bytes flipped = good;
  flipped[13] ^= 0x10;
  CHECK(check_frame(view(flipped)).error == FrameError::kCrc);
  Bytes bad_crc = good;
  bad_crc.back() ^= 0x80;
  CHECK(check_frame(view(bad_crc)).error == FrameError::kCrc);

  CHECK(check_frame(view(Bytes(15, 0x11))).error == FrameError::kMalformed);  // shorter than header + CRC
  CHECK(check_frame(rt::Span<const uint8_t>()).error == FrameError::kMalformed);
  CHECK(check_frame(view(raw_body(0xFB, 1, 2, 0, 3, payload))).error == FrameError::kMalformed);  // magic
  CHECK(check_frame(view(raw_body(0xFA, 1, 2, 1, 3, payload))).error == FrameError::kMalformed);  // reserved
  CHECK(check_frame(view(raw_body(0xFA, 1, 2, 0, 4, payload))).error == FrameError::kMalformed);  // length
  CHECK(check_frame(view(raw_body(0xFA, 1, 2, 0, 2, payload))).error == FrameError::kMalformed);
  CHECK(check_frame(view(raw_body(0xFA, 2, 2, 0, 3, payload))).error == FrameError::kUnknownVersion);
  CHECK(check_frame(view(raw_body(0xFA, 0, 2, 0, 3, payload))).error == FrameError::kUnknownVersion);
  CHECK(check_frame(view(raw_body(0xFA, 1, 0, 0, 3, payload))).error == FrameError::kUnknownKind);
  CHECK(check_frame(view(raw_body(0xFA, 1, kLastMessageKind + 1, 0, 3, payload))).error == FrameError::kUnknownKind);
  CHECK(check_frame(view(raw_body(0xFA, 1, kLastMessageKind, 0, 3, payload))).error == FrameError::kNone);
  CHECK(check_frame(view(Bytes(kMaxFrameBytes + 1, 0x11))).error == FrameError::kOversized);
  const Bytes empty_payload = raw_body(0xFA, 1, 1, 0, 0, {});
  CHECK(empty_payload.size() == 16);
  CHECK(check_frame(view(empty_payload)).error == FrameError::kNone);
  CHECK(check_frame(view(empty_payload)).frame.payload.empty());
}

TEST_CASE("Every message kind has a name", "[link][frame]") {
  for (unsigned kind = 1; kind <= kLastMessageKind; ++kind) {
    CHECK(is_known_message_kind(static_cast<uint8_t>(kind)));
    CHECK(std::string(message_kind_name(static_cast<MessageKind>(kind))) != "unknown");
  }
  CHECK_FALSE(is_known_message_kind(0));
  CHECK_FALSE(is_known_message_kind(kLastMessageKind + 1));
  CHECK(std::string(frame_error_name(FrameError::kCrc)) == "crc mismatch");
}
