// COBS encoding and decoding, one-shot and streaming; see cobs.hpp for the block format.
#include "cobs.hpp"

namespace rt::link {

CobsEncoder::CobsEncoder(Span<uint8_t> output) : output_(output) { open_block(); }

void CobsEncoder::write(size_t at, uint8_t byte) {
  if (at < output_.size()) {
    output_[at] = byte;
  } else {
    overflow_ = true;
  }
}

void CobsEncoder::open_block() {
  code_at_ = size_++;  // the code byte is written when the block closes
  code_ = 1;
  block_open_ = true;
}

void CobsEncoder::close_block() {
  write(code_at_, code_);
  block_open_ = false;
}

void CobsEncoder::put(uint8_t byte) {
  // A full block is closed at once but its successor opened only now: a full block at the very end
  // of the input is not followed by an empty one.
  if (!block_open_) open_block();
  if (byte == 0) {
    close_block();
    open_block();
    return;
  }
  write(size_++, byte);
  if (++code_ == 0xFF) close_block();
}

void CobsEncoder::put(Span<const uint8_t> bytes) {
  for (uint8_t byte : bytes) put(byte);
}

Result<size_t> CobsEncoder::finish() {
  if (block_open_) close_block();
  if (overflow_) return invalid_argument("COBS encoding needs {} bytes, the output holds {}", size_, output_.size());
  return size_;
}

bool CobsDecoder::emit(uint8_t byte) {
  if (size_ >= output_.size()) return false;
  output_[size_++] = byte;
  return true;
}

bool CobsDecoder::put(uint8_t byte) {
  if (byte == 0) return false;
  if (remaining_ > 0) {
    if (!emit(byte)) return false;
    --remaining_;
    return true;
  }
  // A code byte: the block before it (unless full) stood for its data plus one 0x00.
  if (started_ && code_ != 0xFF && !emit(0)) return false;
  code_ = byte;
  remaining_ = static_cast<uint8_t>(byte - 1);
  started_ = true;
  return true;
}

void CobsDecoder::reset() {
  size_ = 0;
  remaining_ = 0;
  code_ = 0;
  started_ = false;
}

Result<size_t> cobs_encode(Span<const uint8_t> input, Span<uint8_t> output) {
  const size_t needed = cobs_max_encoded_size(input.size());
  if (output.size() < needed)
    return invalid_argument("COBS encoding of {} bytes may need {} bytes, the output holds {}", input.size(), needed,
                            output.size());
  CobsEncoder encoder(output);
  encoder.put(input);
  return encoder.finish();
}

Result<size_t> cobs_decode(Span<const uint8_t> input, Span<uint8_t> output) {
  if (input.empty()) return invalid_argument("COBS input is empty (an encoding has at least one code byte)");
  CobsDecoder decoder(output);
  for (size_t i = 0; i < input.size(); ++i) {
    if (input[i] == 0) return invalid_argument("COBS input has a 0x00 at offset {}", i);
    if (!decoder.put(input[i]))
      return invalid_argument("COBS output of {} bytes is too small for the decoded data", output.size());
  }
  if (!decoder.complete()) return invalid_argument("COBS input ends inside a block (truncated)");
  return decoder.size();
}

}  // namespace rt::link
