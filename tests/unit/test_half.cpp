// float16 / bfloat16 conversions (runtime/dtype/half.hpp) against independent references: GCC's
// own _Float16 conversions for IEEE half, and a double-precision nearest-even search for bfloat16.
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/dtype/half.hpp"

namespace {

using test_helpers::bits_of;

float float_of(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

// bfloat16 by definition: the nearer of the two bfloat16 neighbours of x, ties to the even one,
// decided with exact double arithmetic (every float and bfloat16 is exact in a double).
uint16_t reference_bfloat16(float x) {
  const uint32_t bits = bits_of(x);
  const uint32_t lower = bits & 0xffff0000u;
  const uint32_t upper = lower + 0x10000u;  // may step into infinity, which is what RNE yields
  const double value = std::fabs(static_cast<double>(x));
  const double low = std::fabs(static_cast<double>(float_of(lower)));
  const double high = (upper & 0x7fffffffu) == 0x7f800000u ? std::ldexp(1.0, 128) : std::fabs(static_cast<double>(float_of(upper)));
  const double to_low = value - low;
  const double to_high = high - value;
  if (to_low < to_high) return static_cast<uint16_t>(lower >> 16);
  if (to_high < to_low) return static_cast<uint16_t>(upper >> 16);
  return static_cast<uint16_t>(((lower >> 16) & 1u) == 0 ? lower >> 16 : upper >> 16);
}

bool is_nan_bits(uint32_t bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }

}  // namespace

TEST_CASE("float16 to float is exact for all 65536 encodings", "[half]") {
  for (uint32_t h = 0; h < 65536; ++h) {
    _Float16 reference;
    const uint16_t h16 = static_cast<uint16_t>(h);
    std::memcpy(&reference, &h16, 2);
    const float got = rt::to_float(rt::Float16{h16});
    const float want = static_cast<float>(reference);
    if (std::isnan(want)) {
      REQUIRE(std::isnan(got));
    } else if (bits_of(got) != bits_of(want)) {  // Catch2's INFO only on a mismatch: it formats a message per call
      INFO("half bits " << h);
      REQUIRE(bits_of(got) == bits_of(want));
    }
  }
}

TEST_CASE("float to float16 rounds to nearest even like _Float16", "[half]") {
  auto check = [](uint32_t bits) {
    const float x = float_of(bits);
    if (std::isnan(x)) {
      REQUIRE((rt::to_float16(x).bits & 0x7c00u) == 0x7c00u);
      REQUIRE((rt::to_float16(x).bits & 0x03ffu) != 0);
      return;
    }
    const _Float16 reference = static_cast<_Float16>(x);
    uint16_t want;
    std::memcpy(&want, &reference, 2);
    if (rt::to_float16(x).bits == want) return;  // INFO and REQUIRE cost microseconds each: mismatches only
    INFO("float bits " << bits);
    REQUIRE(rt::to_float16(x).bits == want);
  };
  for (uint64_t bits = 0; bits < (1ull << 32); bits += 997) check(static_cast<uint32_t>(bits));
  // Boundaries: subnormal/normal edges, the largest finite half, halfway cases, infinities.
  for (uint32_t special : {0u, 0x80000000u, 0x33000000u, 0x33000001u, 0x387fc000u, 0x38800000u, 0x477fe000u,
                           0x477fefffu, 0x477ff000u, 0x7f800000u, 0xff800000u, 0x3f800000u, 0x3f801000u, 0x3f803000u})
    check(special);
}

TEST_CASE("bfloat16 conversions: exact widening, nearest-even narrowing", "[half]") {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float widened = rt::to_float(rt::BFloat16{static_cast<uint16_t>(b)});
    if (bits_of(widened) != b << 16) REQUIRE(bits_of(widened) == b << 16);
  }
  auto check = [](uint32_t bits) {
    const uint16_t got = rt::to_bfloat16(float_of(bits)).bits;
    const bool right = is_nan_bits(bits) ? is_nan_bits(uint32_t{got} << 16) : got == reference_bfloat16(float_of(bits));
    if (right) return;  // INFO and REQUIRE cost microseconds each: mismatches only
    INFO("float bits " << bits);
    if (is_nan_bits(bits)) {
      REQUIRE(is_nan_bits(uint32_t{got} << 16));
    } else {
      REQUIRE(got == reference_bfloat16(float_of(bits)));
    }
  };
  for (uint64_t bits = 0; bits < (1ull << 32); bits += 1009) check(static_cast<uint32_t>(bits));
  for (uint32_t special : {0u, 0x80000000u, 0x00000001u, 0x3f808000u, 0x3f818000u, 0x3f808001u, 0x7f7f8000u,
                           0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u})
    check(special);
}
