// bfloat16 and IEEE float16 as 16-bit storage types with exact conversions to float and
// round-to-nearest-even conversions from float (NaN stays NaN, overflow goes to infinity).
#pragma once
#include "hal/support/types.hpp"

namespace rt {

struct BFloat16 {
  uint16_t bits;
};
struct Float16 {
  uint16_t bits;
};

inline uint32_t float_bits(float value) {
  uint32_t bits;
  __builtin_memcpy(&bits, &value, sizeof(bits));
  return bits;
}
inline float float_from_bits(uint32_t bits) {
  float value;
  __builtin_memcpy(&value, &bits, sizeof(value));
  return value;
}

inline float to_float(BFloat16 value) { return float_from_bits(uint32_t{value.bits} << 16); }

inline BFloat16 to_bfloat16(float value) {
  const uint32_t bits = float_bits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return BFloat16{static_cast<uint16_t>((bits >> 16) | 0x0040)};  // quiet NaN
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);  // ties to even
  return BFloat16{static_cast<uint16_t>((bits + rounding) >> 16)};
}

float to_float(Float16 value);
Float16 to_float16(float value);

}  // namespace rt
