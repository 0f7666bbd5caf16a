// Little-endian cursor implementation (see wire.hpp).
#include "wire.hpp"

namespace rt::link {

void WireWriter::u8(uint8_t value) {
  if (failed_ || size_ >= output_.size()) {
    failed_ = true;
    return;
  }
  output_[size_++] = value;
}

void WireWriter::u16(uint16_t value) {
  for (int shift = 0; shift < 16; shift += 8) u8(static_cast<uint8_t>(value >> shift));
}

void WireWriter::u32(uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) u8(static_cast<uint8_t>(value >> shift));
}

void WireWriter::u64(uint64_t value) {
  for (int shift = 0; shift < 64; shift += 8) u8(static_cast<uint8_t>(value >> shift));
}

void WireWriter::bytes(Span<const uint8_t> bytes) {
  if (failed_ || bytes.size() > output_.size() - size_) {
    failed_ = true;
    return;
  }
  if (!bytes.empty()) __builtin_memcpy(output_.data() + size_, bytes.data(), bytes.size());
  size_ += bytes.size();
}

void WireWriter::text(StringView text) {
  bytes(Span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

uint64_t WireReader::little_endian(size_t width) {
  if (failed_ || width > remaining()) {
    failed_ = true;
    return 0;
  }
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) value |= uint64_t{input_[offset_ + i]} << (8 * i);
  offset_ += width;
  return value;
}

uint8_t WireReader::u8() { return static_cast<uint8_t>(little_endian(1)); }
uint16_t WireReader::u16() { return static_cast<uint16_t>(little_endian(2)); }
uint32_t WireReader::u32() { return static_cast<uint32_t>(little_endian(4)); }
uint64_t WireReader::u64() { return little_endian(8); }

Span<const uint8_t> WireReader::bytes(size_t count) {
  if (failed_ || count > remaining()) {
    failed_ = true;
    return {};
  }
  const Span<const uint8_t> view = input_.subspan(offset_, count);
  offset_ += count;
  return view;
}

StringView WireReader::text(size_t count) {
  const Span<const uint8_t> view = bytes(count);
  return StringView(reinterpret_cast<const char*>(view.data()), view.size());
}

Span<const uint8_t> WireReader::rest() { return bytes(remaining()); }

}  // namespace rt::link
