// CRC-32 (reflected 0xEDB88320). AArch64 cores with the CRC32 extension (Cortex-A53 has it) use
// their CRC32X/CRC32B instructions, which compute exactly this polynomial; elsewhere slicing-by-8:
// eight compile-time tables, eight bytes per step (the byte-at-a-time loop is kept for the tail).
#include "crc32.hpp"

#include "hal/support/array.hpp"

#if defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>
#endif

namespace rt::link {
namespace {

constexpr uint32_t kPolynomial = 0xEDB88320u;

using Tables = Array<Array<uint32_t, 256>, 8>;

constexpr Tables make_tables() {
  Tables tables{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ kPolynomial : crc >> 1;
    tables[0][byte] = crc;
  }
  for (uint32_t byte = 0; byte < 256; ++byte)
    for (int slice = 1; slice < 8; ++slice)
      tables[slice][byte] = (tables[slice - 1][byte] >> 8) ^ tables[0][tables[slice - 1][byte] & 0xFF];
  return tables;
}

constexpr Tables kTables = make_tables();
static_assert(kTables[0][1] == 0x77073096u && kTables[0][255] == 0x2D02EF8Du, "CRC-32 table matches zlib's");

[[maybe_unused]] uint64_t load_le64(const uint8_t* bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

}  // namespace

uint32_t crc32_update(uint32_t previous, Span<const uint8_t> bytes) {
  uint32_t crc = ~previous;
  const uint8_t* data = bytes.data();
  size_t size = bytes.size();
#if defined(__ARM_FEATURE_CRC32)
  for (; size >= 8; size -= 8, data += 8) {
    uint64_t word;
    __builtin_memcpy(&word, data, 8);  // little-endian load
    crc = __crc32d(crc, word);
  }
  for (; size > 0; --size) crc = __crc32b(crc, *data++);
#else
  for (; size >= 8; size -= 8, data += 8) {
    const uint64_t word = load_le64(data) ^ crc;
    crc = kTables[7][word & 0xFF] ^ kTables[6][(word >> 8) & 0xFF] ^ kTables[5][(word >> 16) & 0xFF] ^
          kTables[4][(word >> 24) & 0xFF] ^ kTables[3][(word >> 32) & 0xFF] ^ kTables[2][(word >> 40) & 0xFF] ^
          kTables[1][(word >> 48) & 0xFF] ^ kTables[0][word >> 56];
  }
  for (; size > 0; --size) crc = kTables[0][(crc ^ *data++) & 0xFF] ^ (crc >> 8);
#endif
  return ~crc;
}

}  // namespace rt::link
