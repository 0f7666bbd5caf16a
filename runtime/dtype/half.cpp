// IEEE 754 binary16 <-> binary32 conversions (bit manipulation, no FPU support for f16 needed).
#include "half.hpp"

namespace rt {

float to_float(Float16 value) {
  const uint32_t sign = uint32_t{value.bits & 0x8000u} << 16;
  const uint32_t exponent = (value.bits >> 10) & 0x1fu;
  uint32_t mantissa = value.bits & 0x3ffu;
  if (exponent == 0x1f) return float_from_bits(sign | 0x7f800000u | (mantissa << 13));  // inf / NaN
  if (exponent != 0) return float_from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return float_from_bits(sign);  // signed zero
  // Subnormal: normalise the mantissa.
  int shift = 0;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    ++shift;
  }
  mantissa &= 0x3ffu;
  return float_from_bits(sign | static_cast<uint32_t>(113 - shift) << 23 | (mantissa << 13));
}

Float16 to_float16(float value) {
  const uint32_t bits = float_bits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return Float16{static_cast<uint16_t>(sign | 0x7e00u)};  // NaN
  if (magnitude >= 0x477ff000u) return Float16{static_cast<uint16_t>(sign | 0x7c00u)};  // rounds to inf
  if (magnitude < 0x38800000u) {
    // Result is subnormal or zero: value = magnitude_as_float / 2^-24 units, rounded to even.
    if (magnitude < 0x33000000u) return Float16{sign};  // below half the smallest subnormal
    const uint32_t exponent = magnitude >> 23;
    const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exponent;  // 14 + (127 - 1 - exponent) ... bring to 2^-24 units
    const uint32_t whole = mantissa >> shift;
    const uint32_t remainder = mantissa & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    const uint32_t rounded = whole + ((remainder > half || (remainder == half && (whole & 1))) ? 1 : 0);
    return Float16{static_cast<uint16_t>(sign | rounded)};
  }
  // Normal: rebias exponent, round mantissa from 23 to 10 bits, ties to even (carry may bump exponent).
  const uint32_t rebased = magnitude - (112u << 23);
  const uint32_t rounding = 0xfffu + ((rebased >> 13) & 1u);
  return Float16{static_cast<uint16_t>(sign | ((rebased + rounding) >> 13))};
}

}  // namespace rt
