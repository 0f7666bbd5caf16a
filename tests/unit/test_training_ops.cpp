// apply_gradient_descent (runtime/ops/training_ops.hpp) against a plain loop written here: the
// product rounded to the dtype, then the difference, element by element (NumPy's `w -= lr * g`),
// over random values and the special ones (NaN, infinities, zeros of both signs, subnormals); a
// NaN result must be the canonical quiet NaN. Then TF's errors: shapes, dtypes, strided views.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/ops/arena_ops.hpp"
#include "runtime/ops/training_ops.hpp"

namespace {

alignas(64) uint8_t memory[1 << 20];

template <class T>
std::vector<T> values_with_specials(size_t count, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<T> uniform(T(-4), T(4));
  std::vector<T> values(count);
  for (T& value : values) value = uniform(random);
  const T specials[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(), T(0), -T(0), std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::max(), -std::numeric_limits<T>::max()};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; ++i) values[(i * 37 + seed) % count] = specials[i];
  return values;
}

template <class T>
std::vector<T> reference(const std::vector<T>& var, T alpha, const std::vector<T>& delta) {
  std::vector<T> out(var.size());
  for (size_t i = 0; i < var.size(); ++i) {
    volatile T product = alpha * delta[i];  // rounded to T here, whatever the compiler would contract
    out[i] = var[i] - product;
  }
  return out;
}

template <class T, class Bits>
void check_descent(rt::DType dtype, T alpha) {
  rt::Arena arena(0, memory, sizeof memory);
  const size_t count = 1031;  // not a multiple of any vector width
  const std::vector<T> w = values_with_specials<T>(count, 3), g = values_with_specials<T>(count, 8);
  const std::vector<T> expected = reference(w, alpha, g);
  const int64_t dims[] = {static_cast<int64_t>(count)};
  const rt::Tensor var = *rt::constant<T>(arena, rt::Span<const int64_t>(dims), rt::Span<const T>(w.data(), w.size()));
  const rt::Tensor delta = *rt::constant<T>(arena, rt::Span<const int64_t>(dims), rt::Span<const T>(g.data(), g.size()));
  REQUIRE(var.dtype == dtype);
  REQUIRE(rt::apply_gradient_descent(var, static_cast<double>(alpha), delta).is_ok());
  const rt::Span<T> got = var.values<T>();
  size_t nans = 0;
  for (size_t i = 0; i < count; ++i) {
    Bits got_bits, expected_bits;
    std::memcpy(&got_bits, &got[i], sizeof got_bits);
    std::memcpy(&expected_bits, &expected[i], sizeof expected_bits);
    if (std::isnan(expected[i])) {
      ++nans;
      const Bits canonical = sizeof(T) == 4 ? Bits(0x7fc00000u) : Bits(0x7ff8000000000000ull);
      CHECK(got_bits == canonical);
    } else {
      INFO("element " << i << ": w " << w[i] << ", g " << g[i]);
      CHECK(got_bits == expected_bits);
    }
  }
  CHECK(nans >= 2);  // the NaNs given, and inf - inf
}

}  // namespace

TEST_CASE("apply_gradient_descent: var -= alpha * delta, rounded as NumPy rounds it", "[training_ops]") {
  check_descent<float, uint32_t>(rt::DType::kF32, 0.05f);
  check_descent<float, uint32_t>(rt::DType::kF32, 1.7f);
  check_descent<double, uint64_t>(rt::DType::kF64, 0.05);
}

TEST_CASE("apply_gradient_descent: TF's errors, var untouched", "[training_ops]") {
  rt::Arena arena(0, memory, sizeof memory);
  const rt::Tensor var = *rt::constant<float>(arena, {2, 3}, {1, 2, 3, 4, 5, 6});
  const rt::Status shapes = rt::apply_gradient_descent(var, 0.5, *rt::constant<float>(arena, {3}, {1, 1, 1}));
  CHECK(shapes.code() == rt::StatusCode::kInvalidArgument);
  CHECK(std::string(shapes.message().data()) == "var and delta do not have the same shape[2, 3] [3]");
  const rt::Status dtypes = rt::apply_gradient_descent(var, 0.5, *rt::constant<double>(arena, {2, 3}, {1, 1, 1, 1, 1, 1}));
  CHECK(std::string(dtypes.message().data()) == "apply_gradient_descent: var is float32 and delta float64: they must share a dtype");
  const rt::Tensor integers = *rt::constant<int32_t>(arena, {2}, {1, 2});
  CHECK(std::string(rt::apply_gradient_descent(integers, 1, integers).message().data()) ==
        "apply_gradient_descent supports float32 and float64, not int32");
  const rt::Tensor column = *var.slice(1, 1, 2);  // a strided view [[2], [5]]
  const rt::Tensor ones = *rt::constant<float>(arena, {2, 1}, {1, 1});
  CHECK(std::string(rt::apply_gradient_descent(column, 1, ones).message().data()) ==
        "apply_gradient_descent: var and delta must be contiguous (var is a strided view: copy it first)");
  const rt::Span<const float> after = var.values<float>();
  CHECK(std::vector<float>(after.begin(), after.end()) == std::vector<float>{1, 2, 3, 4, 5, 6});
}
