// Dynamic shapes through the ops (runtime/ops/dynamic_shape.hpp): tensors padded the way
// replicate pads them (real sizes below the sizes), with garbage (NaN, huge values) in the padding
// so any padded element that leaks into a result shows. Expected values are computed by hand in
// the test (the same float operations in the kernels' documented order), and compared with the
// same op on the unpadded tensor.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "runtime/mxu/mxu.hpp"
#include "runtime/ops/arena_ops.hpp"
#include "runtime/ops/dynamic_shape.hpp"
#include "tensor_test_helpers.hpp"

namespace {

using test_helpers::bits_of;
using test_helpers::message;

alignas(64) uint8_t memory[1 << 18];
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const int kAxis0[] = {0};

// `x` with the real sizes `real` (one per dimension), as replicate's padding leaves it.
rt::Tensor padded(rt::Tensor x, std::initializer_list<int64_t> real) {
  unsigned d = 0;
  for (const int64_t size : real) REQUIRE(x.shape.set_real_size(d++, size).is_ok());
  return x;
}

std::vector<int64_t> reals(const rt::Tensor& t) {
  return std::vector<int64_t>(t.shape.real, t.shape.real + t.shape.rank);
}
std::vector<float> floats(const rt::Tensor& t) {
  const rt::Span<float> values = t.values<float>();
  return std::vector<float>(values.begin(), values.end());
}

}  // namespace

TEST_CASE("reduce_mean(x + 1) of a padded vector equals the unpadded value exactly", "[dynamic_shapes]") {
  rt::Arena arena(0, memory, sizeof memory);
  const rt::Tensor x = padded(*rt::constant<float>(arena, {4}, {0.1f, 0.7f, 1.3f, 1e30f}), {3});
  const rt::Tensor y = *rt::add(arena, x, 1.0f);
  CHECK(reals(y) == std::vector<int64_t>{3});
  const rt::Tensor mean = *rt::reduce_mean(arena, y);
  const float expected = (((0.1f + 1.0f) + (0.7f + 1.0f)) + (1.3f + 1.0f)) / 3.0f;
  CHECK(bits_of(mean.scalar<float>()) == bits_of(expected));
  const rt::Tensor unpadded = *rt::constant<float>(arena, {3}, {0.1f, 0.7f, 1.3f});
  CHECK(bits_of(rt::reduce_mean(arena, *rt::add(arena, unpadded, 1.0f))->scalar<float>()) == bits_of(expected));

  const rt::Tensor with_nan = padded(*rt::constant<float>(arena, {4}, {2, 4, 9, kNaN}), {3});
  CHECK(rt::reduce_mean(arena, *rt::add(arena, with_nan, 1.0f))->scalar<float>() == 6.0f);  // (3 + 5 + 10) / 3
}

TEST_CASE("sum, mean, max, min and prod over padded axes of a matrix see only real elements", "[dynamic_shapes]") {
  rt::Arena arena(0, memory, sizeof memory);
  // Real [2, 3] of [3, 4]: the last row and column are garbage.
  const rt::Tensor x = padded(*rt::constant<float>(arena, {3, 4}, {1, 2, 3, kNaN,     //
                                                                   4, 5, 6, 1e30f,    //
                                                                   kNaN, -1e30f, 7, 8}),
                              {2, 3});
  const rt::Tensor rows = *rt::reduce_sum(arena, x, {1});
  CHECK(reals(rows) == std::vector<int64_t>{2});
  CHECK(rows.values<float>()[0] == 6.0f);
  CHECK(rows.values<float>()[1] == 15.0f);
  const rt::Tensor columns = *rt::reduce(arena, rt::ReduceAxesOp::kMax, x, kAxis0);
  CHECK(reals(columns) == std::vector<int64_t>{3});
  CHECK(columns.values<float>()[0] == 4.0f);
  CHECK(columns.values<float>()[1] == 5.0f);
  CHECK(columns.values<float>()[2] == 6.0f);
  const rt::Tensor column_min = *rt::reduce(arena, rt::ReduceAxesOp::kMin, x, kAxis0);
  CHECK(column_min.values<float>()[0] == 1.0f);
  CHECK(column_min.values<float>()[2] == 3.0f);
  CHECK(rt::reduce_sum(arena, x)->scalar<float>() == 21.0f);
  CHECK(rt::reduce_mean(arena, x)->scalar<float>() == 3.5f);
  CHECK(rt::reduce_max(arena, x)->scalar<float>() == 6.0f);
  CHECK(rt::reduce(arena, rt::ReduceAxesOp::kMin, x)->scalar<float>() == 1.0f);
  CHECK(rt::reduce(arena, rt::ReduceAxesOp::kProd, x)->scalar<float>() == 720.0f);
  const rt::Tensor kept = *rt::reduce_mean(arena, x, {1}, true);
  CHECK(reals(kept) == std::vector<int64_t>{2, 1});
  CHECK(kept.values<float>()[0] == 2.0f);
  CHECK(kept.values<float>()[1] == 5.0f);
}

TEST_CASE("the float32 row-sum fast path and integer means count only real rows", "[dynamic_shapes]") {
  rt::Arena arena(0, memory, sizeof memory);
  // reduce over axis 0 of a contiguous float32 matrix (a bias gradient): 2 real rows of 4.
  const rt::Tensor x =
      padded(*rt::constant<float>(arena, {4, 3}, {1, 2, 3, 10, 20, 30, kNaN, kNaN, kNaN, 5, 5, 5}), {2, 3});
  CHECK(floats(*rt::reduce_sum(arena, x, {0})) == std::vector<float>{11, 22, 33});
  CHECK(floats(*rt::reduce_mean(arena, x, {0})) == std::vector<float>{5.5f, 11, 16.5f});
  const rt::Tensor n = padded(*rt::constant<int32_t>(arena, {4}, {1, 2, 4, 1000}), {3});
  CHECK(rt::reduce_mean(arena, n)->scalar<int32_t>() == 2);  // 7 / 3, truncated
  CHECK(rt::reduce_sum(arena, n)->scalar<int32_t>() == 7);
  const rt::Tensor empty = padded(*rt::constant<float>(arena, {2}, {kNaN, kNaN}), {0});
  CHECK(rt::reduce_sum(arena, empty)->scalar<float>() == 0.0f);
  CHECK(std::isnan(rt::reduce_mean(arena, empty)->scalar<float>()));
}

TEST_CASE("reductions of unpadded tensors are unchanged", "[dynamic_shapes]") {
  rt::Arena arena(0, memory, sizeof memory);
  const rt::Tensor x = *rt::constant<float>(arena, {2, 2}, {1, 2, 3, 4});
  CHECK(rt::reduce_mean(arena, x)->scalar<float>() == 2.5f);
  CHECK(reals(*rt::reduce_sum(arena, x, {0})) == std::vector<int64_t>{2});
  CHECK_FALSE(rt::has_padding(rt::add(arena, x, 1.0f)->shape));
}

TEST_CASE("softmax and log_softmax of a padded row equal those of the unpadded row, padding 0", "[dynamic_shapes]") {
  rt::Arena arena(0, memory, sizeof memory);
  const rt::Tensor logits = padded(*rt::constant<float>(arena, {2, 4}, {1, 2, 3, 100, -1, 0.5f, 2, kNaN}), {2, 3});
  const rt::Tensor unpadded = *rt::constant<float>(arena, {2, 3}, {1, 2, 3, -1, 0.5f, 2});
  for (const bool log : {false, true}) {
    const rt::Tensor got = log ? *rt::log_softmax(arena, logits) : *rt::softmax(arena, logits);
    const rt::Tensor want = log ? *rt::log_softmax(arena, unpadded) : *rt::softmax(arena, unpadded);
    CHECK(reals(got) == std::vector<int64_t>{2, 3});
    for (int row = 0; row < 2; ++row) {
      for (int i = 0; i < 3; ++i) CHECK(bits_of(got.at<float>(row, i)) == bits_of(want.at<float>(row, i)));
      CHECK(bits_of(got.at<float>(row, 3)) == bits_of(0.0f));
    }
  }
  // By hand: softmax(1, 2, 3) = e^(i-3) / (e^-2 + e^-1 + 1).
  const rt::Tensor p = *rt::softmax(arena, logits);
  const double sum = std::exp(-2.0) + std::exp(-1.0) + 1.0;
  CHECK(p.at<float>(0, 0) == Approx(std::exp(-2.0) / sum).epsilon(1e-6));
  CHECK(p.at<float>(0, 2) == Approx(1.0 / sum).epsilon(1e-6));
}

TEST_CASE("softmax over a padded leading axis normalises each column over its real rows", "[dynamic_shapes]") {
  rt::Arena arena(0, memory, sizeof memory);
  const rt::Tensor logits = padded(*rt::constant<float>(arena, {3, 2}, {0, 1, 0, 1, 50, kNaN}), {2, 2});
  const rt::Tensor p = *rt::softmax(arena, logits, 0);
  CHECK(floats(p) == std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f, 0, 0});
}

TEST_CASE("elementwise ops propagate real sizes by the broadcast rule", "[dynamic_shapes]") {
  rt::Arena arena(0, memory, sizeof memory);
  const rt::Tensor x = padded(*rt::constant<float>(arena, {2, 4}, {1, 2, 3, 0, 4, 5, 6, 0}), {2, 3});
  CHECK(reals(*rt::mul(arena, x, 2.0f)) == std::vector<int64_t>{2, 3});
  CHECK(reals(*rt::add(arena, *rt::constant<float>(arena, {2, 1}, {1, 2}), x)) == std::vector<int64_t>{2, 3});
  CHECK(reals(*rt::add(arena, x, *rt::constant<float>(arena, {4}, {1, 1, 1, 1}))) == std::vector<int64_t>{2, 3});
  CHECK(reals(*rt::sub(arena, x, x)) == std::vector<int64_t>{2, 3});
  CHECK(reals(*rt::exp(arena, x)) == std::vector<int64_t>{2, 3});
  CHECK(reals(*rt::cast(arena, x, rt::DType::kI32)) == std::vector<int64_t>{2, 3});
  const rt::Tensor y = padded(*rt::constant<float>(arena, {2, 4}, {0, 0, 0, 0, 0, 0, 0, 0}), {2, 2});
  const rt::Result<rt::Tensor> mismatch = rt::add(arena, x, y);
  REQUIRE_FALSE(mismatch);
  CHECK(mismatch.status().code() == rt::StatusCode::kInvalidArgument);
  CHECK(message(mismatch.status()) == "Incompatible shapes: [2, 3] vs. [2, 2] (real sizes of padded dimensions)");
}

TEST_CASE("matmul over a padded contraction dimension sums only its real part", "[dynamic_shapes]") {
  rt::Arena arena(0, memory, sizeof memory);
  // A [2, 4] with real K = 3 and garbage in column 3; B [4, 2] static.
  const rt::Tensor a = padded(*rt::constant<float>(arena, {2, 4}, {1, 2, 3, kNaN, 4, 5, 6, 1e30f}), {2, 3});
  const rt::Tensor b = *rt::constant<float>(arena, {4, 2}, {1, 0, 0, 1, 1, 1, 7, 7});
  const rt::MatmulOperands operands = rt::real_contraction(a, b);
  CHECK(operands.a.shape.dims[1] == 3);
  CHECK(operands.b.shape.dims[0] == 3);
  rt::Shape c_shape = test_helpers::shape_of({2, 2});
  rt::set_matmul_real_sizes(a, b, c_shape);
  const rt::Tensor c = *arena.allocate_tensor(rt::DType::kF32, c_shape, "c");
  auto mxu = std::make_unique<rt::Mxu>(4);
  REQUIRE(rt::matmul(*mxu, operands.a, operands.b, c).is_ok());
  CHECK(floats(c) == std::vector<float>{4, 5, 10, 11});  // [1 + 3, 2 + 3], [4 + 6, 5 + 6]
  const rt::Tensor b_padded = padded(b, {2, 2});  // B's own real K of 2 is the smaller one
  const rt::MatmulOperands narrower = rt::real_contraction(a, b_padded);
  CHECK(narrower.a.shape.dims[1] == 2);
  REQUIRE(rt::matmul(*mxu, narrower.a, narrower.b, c).is_ok());
  CHECK(floats(c) == std::vector<float>{1, 2, 4, 5});
  const rt::MatmulOperands unpadded = rt::real_contraction(b, a);  // [4, 2] x [2, 4]: K = 2 is not padded
  CHECK(unpadded.a.data == b.data);
  CHECK(unpadded.a.shape.dims[1] == 2);
}
