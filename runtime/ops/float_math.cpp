// float32 exp, log, tanh, erf, sigmoid and sqrt computed in float64 and rounded once (see
// float_math.hpp for the method, the accuracy and the special values).
#include "float_math.hpp"

// No floating-point operation here is used for its exception flags, only for its value; without
// -ftrapping-math GCC may compute both arms of a select, so exp_f32_many's loop vectorizes. Values
// do not change: this allows neither reassociation nor contraction nor finite-math assumptions.
#pragma GCC optimize("no-trapping-math")

#include "runtime/dtype/half.hpp"
#include "hal/support/array.hpp"

namespace rt {
namespace {

uint64_t double_bits(double value) {
  uint64_t bits;
  __builtin_memcpy(&bits, &value, sizeof(bits));
  return bits;
}
double double_from_bits(uint64_t bits) {
  double value;
  __builtin_memcpy(&value, &bits, sizeof(value));
  return value;
}

float nan_f32() { return float_from_bits(kCanonicalNanF32); }
float infinity_f32() { return __builtin_inff(); }
float magnitude(float x) { return float_from_bits(float_bits(x) & 0x7fffffffu); }
// `value` (non-negative) with the sign bit of `sign_source`.
float with_sign_of(float value, float sign_source) {
  return float_from_bits(float_bits(value) | (float_bits(sign_source) & 0x80000000u));
}

constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;   // ln 2 rounded to float64
constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;  // ln 2 - kLn2Hi
constexpr double kInvLn2 = 0x1.71547652b82fep+0;
constexpr double kSqrt2 = 0x1.6a09e667f3bcdp+0;
constexpr double kTwoOverSqrtPi = 0x1.20dd750429b6dp+0;
constexpr double kRoundToInteger = 0x1.8p52;  // v + this - this rounds |v| < 2^51 to an integer

// 2^k for an integral k, -1022 <= k <= 1023: the bits of k + 1023 + 1.5 * 2^52, whose low mantissa
// bits are k + 1023, shifted into the exponent field. No integer conversion (AVX2 has none for
// doubles), so a loop of exp vectorizes.
double power_of_two(double k) { return double_from_bits(double_bits((k + 1023.0) + kRoundToInteger) << 52); }

// y = k ln2 + r with k an integer (held as a double) and |r| <= ln2/2 (plus rounding); |y| < 2^40.
struct Ln2Reduction {
  double k;
  double r;
};
Ln2Reduction reduce_by_ln2(double y) {
  const double k = (y * kInvLn2 + kRoundToInteger) - kRoundToInteger;
  double r = __builtin_fma(-k, kLn2Hi, y);
  r = __builtin_fma(-k, kLn2Lo, r);
  return {k, r};
}

// expm1(r) for |r| <= ln2/2: Taylor polynomial to degree 13 (truncation < 2^-56 relative).
[[gnu::always_inline]] inline double expm1_reduced(double r) {
  double p = 0x1.6124613a86d09p-33;                // 1/13!
  p = __builtin_fma(p, r, 0x1.1eed8eff8d898p-29);  // 1/12!
  p = __builtin_fma(p, r, 0x1.ae64567f544e4p-26);  // 1/11!
  p = __builtin_fma(p, r, 0x1.27e4fb7789f5cp-22);  // 1/10!
  p = __builtin_fma(p, r, 0x1.71de3a556c734p-19);  // 1/9!
  p = __builtin_fma(p, r, 0x1.a01a01a01a01ap-16);  // 1/8!
  p = __builtin_fma(p, r, 0x1.a01a01a01a01ap-13);  // 1/7!
  p = __builtin_fma(p, r, 0x1.6c16c16c16c17p-10);  // 1/6!
  p = __builtin_fma(p, r, 0x1.1111111111111p-7);   // 1/5!
  p = __builtin_fma(p, r, 0x1.5555555555555p-5);   // 1/4!
  p = __builtin_fma(p, r, 0x1.5555555555555p-3);   // 1/3!
  p = __builtin_fma(p, r, 0.5);                    // 1/2!
  return __builtin_fma(p, r * r, r);
}

// e^y for -708 < y < 709 (2^k stays a normal float64). Inline, so exp_f32_many's loop vectorizes.
[[gnu::always_inline]] inline double exp_double(double y) {
  const Ln2Reduction reduced = reduce_by_ln2(y);
  const double scale = power_of_two(reduced.k);
  return __builtin_fma(scale, expm1_reduced(reduced.r), scale);
}

// e^u - 1 for 0 <= u <= 40, with full relative accuracy near 0.
double expm1_double(double u) {
  const Ln2Reduction reduced = reduce_by_ln2(u);
  const double small = expm1_reduced(reduced.r);
  if (reduced.k == 0) return small;
  const double scale = power_of_two(reduced.k);
  return __builtin_fma(scale, small, scale - 1.0);  // scale - 1 is exact for k <= 52
}

// ln(x) for finite x > 0: x = 2^e m with sqrt(1/2) <= m < sqrt(2), ln m = 2 atanh(s) with
// s = (m - 1) / (m + 1), |s| <= 0.172, as the odd series 2s + 2s^3/3 + ... + 2s^21/21.
double log_positive(double x) {
  const uint64_t bits = double_bits(x);
  int64_t exponent = static_cast<int64_t>(bits >> 52) - 1023;
  double m = double_from_bits((bits & 0x000fffffffffffffull) | (uint64_t{1023} << 52));
  if (m > kSqrt2) {
    m *= 0.5;
    exponent += 1;
  }
  const double f = m - 1.0;  // exact
  const double s = f / (2.0 + f);
  const double z = s * s;
  double p = 0x1.8618618618618p-4;                // 2/21
  p = __builtin_fma(p, z, 0x1.af286bca1af28p-4);  // 2/19
  p = __builtin_fma(p, z, 0x1.e1e1e1e1e1e1ep-4);  // 2/17
  p = __builtin_fma(p, z, 0x1.1111111111111p-3);  // 2/15
  p = __builtin_fma(p, z, 0x1.3b13b13b13b14p-3);  // 2/13
  p = __builtin_fma(p, z, 0x1.745d1745d1746p-3);  // 2/11
  p = __builtin_fma(p, z, 0x1.c71c71c71c71cp-3);  // 2/9
  p = __builtin_fma(p, z, 0x1.2492492492492p-2);  // 2/7
  p = __builtin_fma(p, z, 0x1.999999999999ap-2);  // 2/5
  p = __builtin_fma(p, z, 0x1.5555555555555p-1);  // 2/3
  const double log_m = __builtin_fma(s, z * p, 2.0 * s);
  const double e = static_cast<double>(exponent);
  return __builtin_fma(e, kLn2Hi, __builtin_fma(e, kLn2Lo, log_m));
}

// erf(a) for 0 <= a < 4 from the series of positive terms (no cancellation)
//   erf(a) = 2/sqrt(pi) e^(-a^2) a P(2a^2),  P(w) = sum_n w^n / (1 3 5 ... (2n+1)),
// P truncated where the next term is below 2^-56 of the sum: degree kErfDegree[2a] for a in
// [k/2, (k+1)/2), evaluated by Horner. The coefficients are computed at compile time by IEEE
// divisions (relative error < 2^-47), so they are the same constants on every target.
constexpr unsigned kErfMaxDegree = 60;
constexpr unsigned kErfDegree[8] = {13, 19, 25, 31, 38, 45, 52, 60};
constexpr Array<double, kErfMaxDegree + 1> erf_series_coefficients() {
  Array<double, kErfMaxDegree + 1> c{};
  c[0] = 1.0;
  for (unsigned n = 1; n <= kErfMaxDegree; ++n) c[n] = c[n - 1] / static_cast<double>(2 * n + 1);
  return c;
}
constexpr Array<double, kErfMaxDegree + 1> kErfSeries = erf_series_coefficients();

double erf_positive(double a) {
  const double z = a * a;  // exact: a has at most 24 significant bits
  const double w = z + z;
  const unsigned degree = kErfDegree[static_cast<unsigned>(a + a)];
  double p = kErfSeries[degree];
  for (unsigned n = degree; n-- > 0;) p = __builtin_fma(p, w, kErfSeries[n]);
  return (kTwoOverSqrtPi * exp_double(-z)) * (a * p);
}

// exp_f32 without a branch, so a loop of it vectorizes (exp_f32_many): exp_double of x clamped into
// the finite range, then the special values chosen by selects.
[[gnu::always_inline]] inline float exp_f32_lanes(float x) {
  const double v = x;  // exact; every test below is on the float64 value, so one vector width serves
  const bool nan = v != v, high = v > 89.0, low = v < -104.0;
  const double e = exp_double(high ? 89.0 : (low ? -104.0 : (nan ? 0.0 : v)));
  // e^89 > FLT_MAX (and +inf); e^-104 < 2^-150, half the smallest subnormal (and -inf); a NaN's
  // float64 canonical NaN converts to float32's.
  const double special = nan ? double_from_bits(kCanonicalNanF64) : (high ? __builtin_inf() : 0.0);
  return static_cast<float>(nan || high || low ? special : e);
}

}  // namespace

float exp_f32(float x) { return exp_f32_lanes(x); }

void exp_f32_many(const float* in, float* out, size_t count) {
  for (size_t i = 0; i < count; ++i) out[i] = exp_f32_lanes(in[i]);
}

float log_f32(float x) {
  if (x != x) return nan_f32();
  if (x == 0.0f) return -infinity_f32();
  if (x < 0.0f) return nan_f32();
  if (x == infinity_f32()) return x;
  return static_cast<float>(log_positive(x));  // float64 holds float32 subnormals as normal numbers
}

float tanh_f32(float x) {
  if (x != x) return nan_f32();
  const float a = magnitude(x);
  if (a >= 10.0f) return with_sign_of(1.0f, x);  // 1 - tanh(10) < 2^-27; includes inf
  const double em = expm1_double(2.0 * static_cast<double>(a));
  return with_sign_of(static_cast<float>(em / (em + 2.0)), x);
}

float erf_f32(float x) {
  if (x != x) return nan_f32();
  const float a = magnitude(x);
  if (a >= 4.0f) return with_sign_of(1.0f, x);  // erfc(4) < 2^-25; includes inf
  return with_sign_of(static_cast<float>(erf_positive(a)), x);
}

float sigmoid_f32(float x) {
  if (x != x) return nan_f32();
  if (x >= 40.0f) return 1.0f;    // 1 - sigmoid(40) < 2^-57; includes +inf
  if (x <= -105.0f) return 0.0f;  // sigmoid(-105) < e^-105 < 2^-150; includes -inf
  if (x >= 0.0f) return static_cast<float>(1.0 / (1.0 + exp_double(-static_cast<double>(x))));
  const double e = exp_double(x);
  return static_cast<float>(e / (1.0 + e));
}

float sqrt_f32(float x) {
  if (x != x || x < 0.0f) return nan_f32();
  float root;
#if defined(__aarch64__)
  __asm__("fsqrt %s0, %s1" : "=w"(root) : "w"(x));
#elif defined(__riscv)
  __asm__("fsqrt.s %0, %1" : "=f"(root) : "f"(x));
#elif defined(__x86_64__) && defined(__AVX__)
  __asm__("vsqrtss %1, %1, %0" : "=x"(root) : "x"(x));
#elif defined(__x86_64__)
  __asm__("sqrtss %1, %0" : "=x"(root) : "x"(x));
#else
  root = __builtin_sqrtf(x);
#endif
  return root;
}

double sqrt_f64(double x) {
  if (x != x || x < 0.0) return double_from_bits(kCanonicalNanF64);
  double root;
#if defined(__aarch64__)
  __asm__("fsqrt %d0, %d1" : "=w"(root) : "w"(x));
#elif defined(__riscv)
  __asm__("fsqrt.d %0, %1" : "=f"(root) : "f"(x));
#elif defined(__x86_64__) && defined(__AVX__)
  __asm__("vsqrtsd %1, %1, %0" : "=x"(root) : "x"(x));
#elif defined(__x86_64__)
  __asm__("sqrtsd %1, %0" : "=x"(root) : "x"(x));
#else
  root = __builtin_sqrt(x);
#endif
  return root;
}

}  // namespace rt
