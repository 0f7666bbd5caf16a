// CRC-32 as in IEEE 802.3, zlib and PNG: reflected polynomial 0xEDB88320, initial value and final
// XOR 0xFFFFFFFF. crc32("123456789") == 0xCBF43926. The host link appends it to every frame.
// Incremental use follows zlib: crc = crc32_update(0, a); crc = crc32_update(crc, b) equals
// crc32(a followed by b). Table-driven (256 entries computed at compile time, one lookup per byte).
#pragma once
#include "hal/support/span.hpp"

namespace rt::link {

// Extends the CRC `previous` (0 to start) by `bytes`.
uint32_t crc32_update(uint32_t previous, Span<const uint8_t> bytes);

inline uint32_t crc32(Span<const uint8_t> bytes) { return crc32_update(0, bytes); }

}  // namespace rt::link
