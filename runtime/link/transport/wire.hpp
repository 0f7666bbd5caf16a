// Bounds-checked little-endian cursors for host-link payloads. Both are sticky: the first write
// past the end (or read past the end) marks the cursor as failed, later calls do nothing (reads
// return zeros and empty views), and the caller checks once at the end. Integers are assembled
// byte by byte, so the wire is little-endian on every target and no access is misaligned.
#pragma once
#include "hal/support/span.hpp"
#include "hal/support/string_view.hpp"

namespace rt::link {

class WireWriter {
 public:
  explicit WireWriter(Span<uint8_t> output) : output_(output) {}
  void u8(uint8_t value);
  void u16(uint16_t value);
  void u32(uint32_t value);
  void u64(uint64_t value);
  void bytes(Span<const uint8_t> bytes);
  void text(StringView text);
  bool failed() const { return failed_; }
  size_t size() const { return size_; }

 private:
  Span<uint8_t> output_;
  size_t size_ = 0;
  bool failed_ = false;
};

class WireReader {
 public:
  explicit WireReader(Span<const uint8_t> input) : input_(input) {}
  uint8_t u8();
  uint16_t u16();
  uint32_t u32();
  uint64_t u64();
  // The next `count` bytes, as a view into the input.
  Span<const uint8_t> bytes(size_t count);
  StringView text(size_t count);
  // Everything not yet read.
  Span<const uint8_t> rest();
  bool failed() const { return failed_; }
  size_t remaining() const { return input_.size() - offset_; }

 private:
  uint64_t little_endian(size_t width);

  Span<const uint8_t> input_;
  size_t offset_ = 0;
  bool failed_ = false;
};

}  // namespace rt::link
