// Deterministic test inputs: element i of replica r in case c is a pure function of (c, r, i).
// Floats span many magnitudes so that a different summation order would change the bits.
#include <string.h>

#include "runtime/dtype/half.hpp"
#include "firmware/splitmix.hpp"
#include "suite.hpp"

namespace collectives_test {

uint64_t mix(uint64_t x) { return firmware::splitmix64(x); }

namespace {

double random_real(uint64_t bits, int max_exponent) {
  const int64_t mantissa = static_cast<int64_t>(bits & 0xfffff) - 0x80000;  // 20 bits, signed
  const int exponent = static_cast<int>((bits >> 20) % static_cast<uint64_t>(max_exponent + 1));
  double value = static_cast<double>(mantissa) / 524288.0;
  for (int e = 0; e < exponent; ++e) value *= 2;
  return value;
}

}  // namespace

void input_element(rt::DType type, uint64_t case_seed, unsigned replica, size_t index, uint8_t* out) {
  const uint64_t bits = mix(case_seed ^ (uint64_t{replica} << 40) ^ index);
  switch (type) {
    case rt::DType::kF32: { const float v = static_cast<float>(random_real(bits, 24)); memcpy(out, &v, 4); break; }
    case rt::DType::kF64: { const double v = random_real(bits, 40) + static_cast<double>(bits >> 44) * 1e-9; memcpy(out, &v, 8); break; }
    case rt::DType::kBF16: { const uint16_t v = rt::to_bfloat16(static_cast<float>(random_real(bits, 12))).bits; memcpy(out, &v, 2); break; }
    case rt::DType::kF16: { const uint16_t v = rt::to_float16(static_cast<float>(random_real(bits, 6))).bits; memcpy(out, &v, 2); break; }
    case rt::DType::kI32: case rt::DType::kU32: { const uint32_t v = static_cast<uint32_t>(bits >> 32); memcpy(out, &v, 4); break; }
    default: memset(out, static_cast<int>(bits & 0xff), rt::dtype_size(type)); break;
  }
}

void fill_input(rt::DType type, uint64_t case_seed, unsigned replica, size_t count, uint8_t* out) {
  const size_t size = rt::dtype_size(type);
  for (size_t i = 0; i < count; ++i) input_element(type, case_seed, replica, i, out + i * size);
}

}  // namespace collectives_test
