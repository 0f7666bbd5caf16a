// COBS (runtime/link/transport/cobs.cpp): hand-computed vectors (the Wikipedia set, including the 254- and
// 255-byte runs of non-zero bytes where the full-block rule matters), round trips of random data,
// the size bound, the streaming classes against the one-shot functions, and decode errors.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "runtime/link/transport/cobs.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using rt::link::cobs_decode;
using rt::link::cobs_encode;
using rt::link::cobs_max_encoded_size;

Bytes encode(const Bytes& input) {
  Bytes out(cobs_max_encoded_size(input.size()));
  auto size =
      cobs_encode(rt::Span<const uint8_t>(input.data(), input.size()), rt::Span<uint8_t>(out.data(), out.size()));
  REQUIRE(size.is_ok());
  out.resize(*size);
  return out;
}

rt::Result<size_t> decode_into(const Bytes& input, Bytes& out) {
  return cobs_decode(rt::Span<const uint8_t>(input.data(), input.size()), rt::Span<uint8_t>(out.data(), out.size()));
}

Bytes decode(const Bytes& input) {
  Bytes out(input.size() + 1);
  auto size = decode_into(input, out);
  INFO(size.status().c_str());
  REQUIRE(size.is_ok());
  out.resize(*size);
  return out;
}

Bytes range(int first, int last) {  // first..last inclusive
  Bytes bytes;
  for (int value = first; value <= last; ++value) bytes.push_back(static_cast<uint8_t>(value));
  return bytes;
}

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes all;
  for (const Bytes& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

}  // namespace

TEST_CASE("COBS encodes the hand-computed vectors and decodes them back", "[link][cobs]") {
  struct Vector {
    Bytes data;
    Bytes encoded;
  };
  const std::vector<Vector> vectors = {
      {{}, {0x01}},
      {{0x00}, {0x01, 0x01}},
      {{0x00, 0x00}, {0x01, 0x01, 0x01}},
      {{0x00, 0x11, 0x00}, {0x01, 0x02, 0x11, 0x01}},
      {{0x11, 0x22, 0x00, 0x33}, {0x03, 0x11, 0x22, 0x02, 0x33}},
      {{0x11, 0x22, 0x33, 0x44}, {0x05, 0x11, 0x22, 0x33, 0x44}},
      {{0x11, 0x00, 0x00, 0x00}, {0x02, 0x11, 0x01, 0x01, 0x01}},
      // 253 non-zero bytes: one block just short of full.
      {range(0x01, 0xFD), concat({{0xFE}, range(0x01, 0xFD)})},
      // 254 non-zero bytes: one full block, and no empty block after it.
      {range(0x01, 0xFE), concat({{0xFF}, range(0x01, 0xFE)})},
      // 0x00 then 254 non-zero bytes.
      {range(0x00, 0xFE), concat({{0x01, 0xFF}, range(0x01, 0xFE)})},
      // 255 non-zero bytes: a full block, then a block of one.
      {range(0x01, 0xFF), concat({{0xFF}, range(0x01, 0xFE), {0x02, 0xFF}})},
      // 254 non-zero bytes then 0x00: a full block (no implied zero), an empty block, the final one.
      {concat({range(0x02, 0xFF), {0x00}}), concat({{0xFF}, range(0x02, 0xFF), {0x01, 0x01}})},
      {concat({range(0x03, 0xFF), {0x00, 0x01}}), concat({{0xFE}, range(0x03, 0xFF), {0x02, 0x01}})},
      // 508 non-zero bytes: exactly two full blocks.
      {concat({range(0x01, 0xFE), range(0x01, 0xFE)}), concat({{0xFF}, range(0x01, 0xFE), {0xFF}, range(0x01, 0xFE)})},
  };
  for (const Vector& vector : vectors) {
    INFO("input of " << vector.data.size() << " bytes");
    CHECK(encode(vector.data) == vector.encoded);
    CHECK(decode(vector.encoded) == vector.data);
  }
}

TEST_CASE("COBS size bound: n + ceil(n / 254), reached by all-non-zero input", "[link][cobs]") {
  CHECK(cobs_max_encoded_size(0) == 1);
  CHECK(cobs_max_encoded_size(1) == 2);
  CHECK(cobs_max_encoded_size(253) == 254);
  CHECK(cobs_max_encoded_size(254) == 255);
  CHECK(cobs_max_encoded_size(255) == 257);
  CHECK(cobs_max_encoded_size(508) == 510);
  CHECK(cobs_max_encoded_size(509) == 512);
  for (size_t n = 1; n < 1300; ++n) CHECK(encode(Bytes(n, 0x5A)).size() == cobs_max_encoded_size(n));
}

TEST_CASE("COBS round-trips random data of every zero density and never emits 0x00", "[link][cobs]") {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t size = rng() % 1100;
    const unsigned zero_percent = rng() % 101;
    Bytes data(size);
    for (uint8_t& byte : data) byte = (rng() % 100 < zero_percent) ? 0 : static_cast<uint8_t>(1 + rng() % 255);
    const Bytes encoded = encode(data);
    REQUIRE(encoded.size() <= cobs_max_encoded_size(size));
    for (uint8_t byte : encoded) REQUIRE(byte != 0);
    REQUIRE(decode(encoded) == data);
  }
}

TEST_CASE("COBS streaming encoder and decoder match the one-shot functions", "[link][cobs]") {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 500; ++trial) {
    Bytes data(rng() % 800);
    for (uint8_t& byte : data) byte = (rng() % 8 == 0) ? 0 : static_cast<uint8_t>(rng());
    Bytes streamed(cobs_max_encoded_size(data.size()));
    rt::link::CobsEncoder encoder(rt::Span<uint8_t>(streamed.data(), streamed.size()));
    size_t at = 0;
    while (at < data.size()) {  // random pieces, some single bytes
      const size_t piece = std::min<size_t>(data.size() - at, rng() % 40);
      if (piece == 1)
        encoder.put(data[at]);
      else
        encoder.put(rt::Span<const uint8_t>(data.data() + at, piece));
      at += piece;
    }
    auto size = encoder.finish();
    REQUIRE(size.is_ok());
    streamed.resize(*size);
    REQUIRE(streamed == encode(data));

    Bytes decoded(data.size());
    rt::link::CobsDecoder decoder(rt::Span<uint8_t>(decoded.data(), decoded.size()));
    REQUIRE_FALSE(decoder.complete());
    for (uint8_t byte : streamed) REQUIRE(decoder.put(byte));
    REQUIRE(decoder.complete());
    REQUIRE(decoder.size() == data.size());
    REQUIRE(decoded == data);
  }
}

TEST_CASE("COBS decodes in place", "[link][cobs]") {
  const Bytes data = concat({range(0x00, 0xFF), range(0x00, 0xFF), {0, 0, 7}});
  Bytes buffer = encode(data);
  auto size = cobs_decode(rt::Span<const uint8_t>(buffer.data(), buffer.size()),
                          rt::Span<uint8_t>(buffer.data(), buffer.size()));
  REQUIRE(size.is_ok());
  buffer.resize(*size);
  CHECK(buffer == data);
}

TEST_CASE("COBS rejects bad encodings and small buffers", "[link][cobs]") {
  Bytes out(64);
  CHECK_FALSE(decode_into({}, out).is_ok());                        // no code byte
  CHECK_FALSE(decode_into({0x03, 0x11}, out).is_ok());              // block cut short
  CHECK_FALSE(decode_into({0x02, 0x11, 0x05, 0x01}, out).is_ok());  // second block cut short
  CHECK_FALSE(decode_into({0x02, 0x00, 0x01}, out).is_ok());        // a 0x00 inside
  Bytes small(2);
  CHECK_FALSE(decode_into({0x04, 0x11, 0x22, 0x33}, small).is_ok());
  Bytes fits(3);
  CHECK(decode_into({0x04, 0x11, 0x22, 0x33}, fits).is_ok());

  const Bytes data(300, 0x42);
  Bytes too_small(cobs_max_encoded_size(data.size()) - 1);
  CHECK_FALSE(cobs_encode(rt::Span<const uint8_t>(data.data(), data.size()),
                          rt::Span<uint8_t>(too_small.data(), too_small.size()))
                  .is_ok());
  // The streaming encoder reports overflow instead of writing past its output.
  Bytes tiny(4, 0xEE);
  rt::link::CobsEncoder encoder(rt::Span<uint8_t>(tiny.data(), 3));
  encoder.put(rt::Span<const uint8_t>(data.data(), 10));
  CHECK_FALSE(encoder.finish().is_ok());
  CHECK(tiny[3] == 0xEE);
  // The streaming decoder refuses 0x00 and bytes beyond its output without storing anything.
  Bytes two(2);
  rt::link::CobsDecoder decoder(rt::Span<uint8_t>(two.data(), two.size()));
  CHECK_FALSE(decoder.put(0x00));
  CHECK(decoder.put(0x04));
  CHECK(decoder.put(0x11));
  CHECK(decoder.put(0x22));
  CHECK_FALSE(decoder.put(0x33));
  CHECK(decoder.size() == 2);
  CHECK_FALSE(decoder.complete());
}
