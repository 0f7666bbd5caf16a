// Shared pieces of the mxu-kernels app: the deterministic input generator, the operand fills, the
// scratch memory (the calling core's HBM arena) and the three checks, each of which returns the
// first mismatch as an error naming the kernel, the case, the element and both values in hex.
#pragma once
#include "firmware/app.hpp"
#include "firmware/splitmix.hpp"
#include "runtime/mxu/mxu.hpp"
#include "runtime/tensor/hbm.hpp"

namespace mxu_kernels {

// splitmix64 over a counter: the same sequence on every board (integer arithmetic only).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() { return firmware::splitmix64(state_++); }
  uint32_t below(uint32_t bound) { return static_cast<uint32_t>(next() % bound); }
  bool coin() { return (next() & 1) != 0; }

 private:
  uint64_t state_;
};

inline uint32_t bits_of(float value) {
  uint32_t bits;
  __builtin_memcpy(&bits, &value, 4);
  return bits;
}
inline float float_of(uint32_t bits) {
  float value;
  __builtin_memcpy(&value, &bits, 4);
  return value;
}
inline bool is_nan(uint32_t bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }
// A kernel's result against the reference's: the same bits, except that any NaN matches any NaN
// (which NaN an fma returns is the ISA's choice; matmul canonicalises them, the kernels do not).
inline bool same_result(uint32_t got, uint32_t want) { return got == want || (is_nan(got) && is_nan(want)); }

// Float operands: normal values of moderate size (so products and sums round in every step);
// specials (signed zeros, infinities, denormals, the largest and the tiniest normals, values
// whose products are denormal) among normal ones; or negative zeros (activations), which tell an
// overwrite that starts from +0 (+0 + -0 = +0) from one that starts from -0.
enum class FloatFill : uint8_t { kNormal, kSpecials, kNegativeZeros };
const char* fill_name(FloatFill fill);
float random_float(Random& random, FloatFill fill);

// int8 operands: uniform; -128 / 127 at random; all -128 (the largest products, 2^14); all 127;
// -128 activations and 127 weights (the most negative products).
enum class IntFill : uint8_t { kRandom, kExtremes, kMinimum, kMaximum, kMinTimesMax };
const char* fill_name(IntFill fill);
int8_t random_int8(Random& random, IntFill fill, bool weight);

// `count` elements of T from the calling core's arena (64-byte aligned); the caller holds an
// rt::ArenaScope that gives them back.
template <class T>
rt::Result<T*> scratch(size_t count) {
  rt::Result<uint8_t*> memory = rt::hbm().allocate((count + 1) * sizeof(T), 64, "mxu-kernels scratch");
  if (!memory) return memory.status();
  return reinterpret_cast<T*>(*memory);
}

// Each check adds the cases it ran to `cases`.
rt::Status check_float_kernel(const rt::FloatKernel& kernel, Random& random, unsigned& cases);
rt::Status check_int_kernel(const rt::IntKernel& kernel, Random& random, unsigned& cases);
// Through the public API (rt::matmul and Mxu::load_weights / stream) on an Mxu built with these
// kernels: float32 and bfloat16 cases for the float kernel, int8 for the int kernel.
rt::Status check_float_matmuls(const rt::FloatKernel& float_kernel, const rt::IntKernel& int_kernel, Random& random,
                               unsigned& cases);
rt::Status check_int_matmuls(const rt::FloatKernel& float_kernel, const rt::IntKernel& int_kernel, Random& random,
                             unsigned& cases);

}  // namespace mxu_kernels
