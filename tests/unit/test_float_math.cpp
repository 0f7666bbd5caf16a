// The runtime's own float32 exp/log/tanh/erf/sigmoid/sqrt (runtime/ops/float_math.cpp) against the
// host's float64 libm: a sweep over every 97th float32 bit pattern (~44M inputs, all binades, both
// signs, subnormals, NaNs) measuring the error in ulps of the float32 result, and the special
// values (signed zeros, infinities, NaN, overflow, underflow, saturation) one by one.
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>
#include <algorithm>

#include "runtime/ops/float_math.hpp"

namespace {

using test_helpers::bits_of;

float from_bits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// Size of one float32 ulp in the binade of `reference` (subnormal spacing below 2^-126).
double float_ulp(double reference) {
  const double magnitude = std::fabs(reference);
  if (magnitude < std::ldexp(1.0, -126)) return std::ldexp(1.0, -149);
  return std::ldexp(1.0, std::ilogb(magnitude) - 23);
}

struct SweepResult {
  double max_ulp = 0;
  float worst_input = 0;
  uint64_t not_correctly_rounded = 0;  // results that differ from the float64 reference rounded to float32
  uint64_t special_mismatches = 0;     // NaN / infinity disagreements
  uint64_t count = 0;
};

// Every `step`-th float32 bit pattern (97: ~44M inputs covering every binade, both signs, NaNs).
template <class Mine, class Reference>
SweepResult sweep(Mine mine, Reference reference, uint64_t step = 97) {
#if defined(__AVX__)
  // glibc's libm is SSE-encoded and runs ~30x slower while a previous test's AVX-512 code left the
  // upper vector state dirty; clear it so the sweep takes seconds, not minutes.
  __builtin_ia32_vzeroupper();
#endif
  SweepResult result;
  for (uint64_t pattern = 0; pattern <= 0xffffffffull; pattern += step) {
    const float x = from_bits(static_cast<uint32_t>(pattern));
    const float got = mine(x);
    const double want = reference(static_cast<double>(x));
    ++result.count;
    if (std::isnan(want) || std::isnan(got)) {
      if (!(std::isnan(want) && std::isnan(got) && bits_of(got) == rt::kCanonicalNanF32)) ++result.special_mismatches;
      continue;
    }
    const float rounded = static_cast<float>(want);
    if (bits_of(got) != bits_of(rounded)) ++result.not_correctly_rounded;
    if (std::isinf(rounded) || std::isinf(got)) {
      if (got != rounded) ++result.special_mismatches;
      continue;
    }
    const double error = std::fabs(static_cast<double>(got) - want) / float_ulp(want);
    if (error > result.max_ulp) {
      result.max_ulp = error;
      result.worst_input = x;
    }
  }
  return result;
}

void report(const char* name, const SweepResult& r) {
  std::printf("float_math %-8s %llu inputs: max error %.4f ulp (at %a), %llu not correctly rounded\n", name,
              static_cast<unsigned long long>(r.count), r.max_ulp, static_cast<double>(r.worst_input),
              static_cast<unsigned long long>(r.not_correctly_rounded));
  CHECK(r.special_mismatches == 0);
  CHECK(r.max_ulp <= 1.0);
}

double sigmoid_reference(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }

bool is_canonical_nan(float x) { return bits_of(x) == rt::kCanonicalNanF32; }
bool same_bits(float a, float b) { return bits_of(a) == bits_of(b); }

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kNegativeNaN = from_bits(0xffc01234u);
const float kSignalingNaN = from_bits(0x7f800001u);

}  // namespace

TEST_CASE("float_math exp/log/tanh/erf/sigmoid within 1 ulp of float64 libm over the float32 range", "[float_math]") {
  report("exp", sweep(rt::exp_f32, [](double x) { return std::exp(x); }));
  report("log", sweep(rt::log_f32, [](double x) { return std::log(x); }));
  report("tanh", sweep(rt::tanh_f32, [](double x) { return std::tanh(x); }));
  report("erf", sweep(rt::erf_f32, [](double x) { return std::erf(x); }));
  report("sigmoid", sweep(rt::sigmoid_f32, sigmoid_reference));
  const SweepResult root = sweep(rt::sqrt_f32, [](double x) { return std::sqrt(x); }, 997);
  CHECK(root.special_mismatches == 0);
  CHECK(root.not_correctly_rounded == 0);  // IEEE sqrt is correctly rounded
}

TEST_CASE("float_math special values", "[float_math]") {
  for (float nan : {kNaN, kNegativeNaN, kSignalingNaN}) {
    CHECK(is_canonical_nan(rt::exp_f32(nan)));
    CHECK(is_canonical_nan(rt::log_f32(nan)));
    CHECK(is_canonical_nan(rt::tanh_f32(nan)));
    CHECK(is_canonical_nan(rt::erf_f32(nan)));
    CHECK(is_canonical_nan(rt::sigmoid_f32(nan)));
    CHECK(is_canonical_nan(rt::sqrt_f32(nan)));
  }
  // exp
  CHECK(same_bits(rt::exp_f32(0.0f), 1.0f));
  CHECK(same_bits(rt::exp_f32(-0.0f), 1.0f));
  CHECK(same_bits(rt::exp_f32(kInf), kInf));
  CHECK(same_bits(rt::exp_f32(-kInf), 0.0f));
  CHECK(same_bits(rt::exp_f32(88.72283f), 3.4027985e38f));  // just below overflow
  CHECK(same_bits(rt::exp_f32(88.72284f), kInf));           // FLT_MAX < e^88.72284: overflow
  CHECK(same_bits(rt::exp_f32(1000.0f), kInf));
  CHECK(same_bits(rt::exp_f32(-87.33655f), static_cast<float>(std::exp(static_cast<double>(-87.33655f)))));  // near FLT_MIN
  CHECK(same_bits(rt::exp_f32(-100.0f), static_cast<float>(std::exp(-100.0))));         // subnormal result
  CHECK(bits_of(rt::exp_f32(-103.2789f)) == 1u);             // the smallest subnormal, 2^-149
  CHECK(same_bits(rt::exp_f32(-104.0f), 0.0f));              // below half the smallest subnormal
  CHECK(same_bits(rt::exp_f32(-1000.0f), 0.0f));
  CHECK(same_bits(rt::exp_f32(1.0f), 2.7182817f));
  // log
  CHECK(same_bits(rt::log_f32(0.0f), -kInf));
  CHECK(same_bits(rt::log_f32(-0.0f), -kInf));
  CHECK(is_canonical_nan(rt::log_f32(-1.0f)));
  CHECK(is_canonical_nan(rt::log_f32(-kInf)));
  CHECK(is_canonical_nan(rt::log_f32(-from_bits(1))));  // negative subnormal
  CHECK(same_bits(rt::log_f32(kInf), kInf));
  CHECK(same_bits(rt::log_f32(1.0f), 0.0f));  // +0
  CHECK(same_bits(rt::log_f32(from_bits(1)), static_cast<float>(std::log(std::ldexp(1.0, -149)))));
  CHECK(same_bits(rt::log_f32(std::numeric_limits<float>::max()), 88.72284f));
  CHECK(same_bits(rt::log_f32(2.7182817f), 0.99999994f));
  // tanh
  CHECK(same_bits(rt::tanh_f32(0.0f), 0.0f));
  CHECK(same_bits(rt::tanh_f32(-0.0f), -0.0f));
  CHECK(same_bits(rt::tanh_f32(kInf), 1.0f));
  CHECK(same_bits(rt::tanh_f32(-kInf), -1.0f));
  CHECK(same_bits(rt::tanh_f32(10.0f), 1.0f));
  CHECK(same_bits(rt::tanh_f32(-9.5f), -1.0f));
  CHECK(same_bits(rt::tanh_f32(from_bits(1)), from_bits(1)));       // tanh(x) = x for tiny x
  CHECK(same_bits(rt::tanh_f32(-1e-30f), -1e-30f));
  // erf
  CHECK(same_bits(rt::erf_f32(0.0f), 0.0f));
  CHECK(same_bits(rt::erf_f32(-0.0f), -0.0f));
  CHECK(same_bits(rt::erf_f32(kInf), 1.0f));
  CHECK(same_bits(rt::erf_f32(-kInf), -1.0f));
  CHECK(same_bits(rt::erf_f32(4.0f), 1.0f));
  CHECK(same_bits(rt::erf_f32(-3.95f), -1.0f));
  CHECK(same_bits(rt::erf_f32(3.5f), static_cast<float>(std::erf(3.5))));
  CHECK(same_bits(rt::erf_f32(from_bits(1)), from_bits(1)));  // 2/sqrt(pi) * 2^-149 rounds to 2^-149
  CHECK(same_bits(rt::erf_f32(from_bits(10)), from_bits(11)));  // 11.28... * 2^-149
  // sigmoid
  CHECK(same_bits(rt::sigmoid_f32(0.0f), 0.5f));
  CHECK(same_bits(rt::sigmoid_f32(-0.0f), 0.5f));
  CHECK(same_bits(rt::sigmoid_f32(kInf), 1.0f));
  CHECK(same_bits(rt::sigmoid_f32(-kInf), 0.0f));
  CHECK(same_bits(rt::sigmoid_f32(-100.0f), static_cast<float>(std::exp(-100.0))));  // subnormal
  // sqrt
  CHECK(same_bits(rt::sqrt_f32(-0.0f), -0.0f));
  CHECK(same_bits(rt::sqrt_f32(kInf), kInf));
  CHECK(is_canonical_nan(rt::sqrt_f32(-1.0f)));
  CHECK(is_canonical_nan(rt::sqrt_f32(-kInf)));
  CHECK(rt::sqrt_f64(2.0) == std::sqrt(2.0));
  CHECK(std::signbit(rt::sqrt_f64(-0.0)));
  CHECK(std::isnan(rt::sqrt_f64(-1.0)));
  CHECK(rt::canonical_nan_if_nan(1.5f) == 1.5f);
  CHECK(is_canonical_nan(rt::canonical_nan_if_nan(kNegativeNaN)));
}

TEST_CASE("exp_f32_many gives exp_f32's bits, in place too, for every 1009th float32 bit pattern", "[float_math]") {
  // The loop (vectorized where the build vectorizes: AVX2 lanes in the host board's -O2 build, NEON
  // on the A53 boards) against one call per element, in calls of 1 .. 1021 elements so every loop
  // tail length appears, specials included.
  std::vector<float> in, out, expected;
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 1009) in.push_back(from_bits(static_cast<uint32_t>(bits)));
  for (float special : {0.0f, -0.0f, 88.7f, 89.0f, 89.00001f, -103.9f, -104.0f, -104.00001f, -87.3f,
                        std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN()})
    in.push_back(special);
  expected.resize(in.size());
  for (size_t i = 0; i < in.size(); ++i) expected[i] = rt::exp_f32(in[i]);
  out.assign(in.size(), 0.0f);
  size_t first = 0;
  for (size_t chunk = 0; first < in.size(); ++chunk) {  // calls of 1 .. 1021 elements
    const size_t count = std::min<size_t>(1 + (chunk * 37) % 1021, in.size() - first);
    rt::exp_f32_many(in.data() + first, out.data() + first, count);
    first += count;
  }
  size_t differ = 0, differ_in_place = 0, first_difference = in.size();
  std::vector<float> same = in;  // in place
  rt::exp_f32_many(same.data(), same.data(), same.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const bool wrong = bits_of(out[i]) != bits_of(expected[i]), wrong_in_place = bits_of(same[i]) != bits_of(expected[i]);
    differ += wrong ? 1 : 0;
    differ_in_place += wrong_in_place ? 1 : 0;
    if ((wrong || wrong_in_place) && first_difference == in.size()) first_difference = i;
  }
  INFO(differ << " of " << in.size() << " differ (" << differ_in_place << " in place); first: exp of bits " << std::hex
              << (first_difference < in.size() ? bits_of(in[first_difference]) : 0u));
  CHECK(differ == 0);
  CHECK(differ_in_place == 0);
}
