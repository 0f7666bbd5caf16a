// COBS (Consistent Overhead Byte Stuffing): turns any bytes into bytes without 0x00, so 0x00 can
// delimit frames on the host link. The data is cut into blocks; each block is a code byte c
// (1..255) followed by c - 1 non-zero data bytes; a block with c < 255 stands for its data bytes
// plus one 0x00, except the last block, whose 0x00 is not part of the data. c = 255 is a full block
// of 254 data bytes with no 0x00 after it. A full block that ends the input is not followed by an
// empty block (Cheshire & Baker's encoding, as on Wikipedia: 254 non-zero bytes encode to 255).
//   00          -> 01 01          11 22 00 33 -> 03 11 22 02 33          (empty) -> 01
// Encoding never needs more than n + ceil(n / 254) bytes (1 for n = 0); the delimiter is not part
// of the encoding. Both directions come as one-shot functions and as streaming classes (the frame
// encoder writes header, payload and CRC without assembling them first; the link decoder decodes
// bytes as they arrive, without buffering the encoded frame).
#pragma once
#include "hal/support/result.hpp"
#include "hal/support/span.hpp"

namespace rt::link {

// The largest encoding of `size` input bytes.
constexpr size_t cobs_max_encoded_size(size_t size) { return size == 0 ? 1 : size + (size + 253) / 254; }

// Encodes `input` into `output` (no delimiter); returns the encoded length, or an error if
// `output` is smaller than cobs_max_encoded_size(input.size()).
Result<size_t> cobs_encode(Span<const uint8_t> input, Span<uint8_t> output);

// Decodes one encoding (without its delimiter) into `output`; returns the decoded length. Errors:
// a 0x00 in the input, a block cut short by the end of the input, an empty input, or an output
// too small. The output may be the input's own storage (decoding never writes ahead of reading).
Result<size_t> cobs_decode(Span<const uint8_t> input, Span<uint8_t> output);

// Streaming encoder: put() bytes, then finish(). Code bytes are written back into their block's
// first position, so the output must be random-access and large enough for the whole encoding.
class CobsEncoder {
 public:
  explicit CobsEncoder(Span<uint8_t> output);
  void put(uint8_t byte);
  void put(Span<const uint8_t> bytes);
  // Closes the last block; returns the encoded length, or an error if the output overflowed.
  Result<size_t> finish();

 private:
  void write(size_t at, uint8_t byte);
  void open_block();
  void close_block();

  Span<uint8_t> output_;
  size_t size_ = 0;     // bytes written (or reserved) so far
  size_t code_at_ = 0;  // position of the open block's code byte
  uint8_t code_ = 1;    // the open block's code: 1 + its data bytes so far
  bool block_open_ = false;
  bool overflow_ = false;
};

// Streaming decoder: put() the non-zero bytes of one encoding, then ask complete() at the
// delimiter. Decoded bytes go straight to the output.
class CobsDecoder {
 public:
  explicit CobsDecoder(Span<uint8_t> output) : output_(output) {}
  // Accepts one encoded byte; false (and nothing stored) if the byte is 0x00 or the output is full.
  bool put(uint8_t byte);
  // Whether the bytes so far are a whole encoding (at least one block, the last one complete).
  bool complete() const { return started_ && remaining_ == 0; }
  size_t size() const { return size_; }
  Span<const uint8_t> decoded() const { return Span<const uint8_t>(output_.data(), size_); }
  void reset();

 private:
  bool emit(uint8_t byte);

  Span<uint8_t> output_;
  size_t size_ = 0;
  uint8_t remaining_ = 0;  // data bytes still to come in the current block
  uint8_t code_ = 0;       // the current block's code byte
  bool started_ = false;
};

}  // namespace rt::link
