// TPUStrategy.reduce's arithmetic (runtime/tpu/strategy_reduce): SUM/MEAN across replicas with and
// without an axis (uneven batches: total sum / total count), TPUStrategy's MEAN scaling by
// float32(1 / N), plain values, op names and TF's error texts. Expected values are hand-computed.
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <cstring>
#include <vector>

#include "runtime/tpu/strategy/strategy_gather.hpp"
#include "runtime/tpu/strategy/strategy_reduce.hpp"

namespace {

using rt::DType;
using rt::ReduceOp;
using rt::Tensor;
using rt::tpu::DistributedValue;
using rt::tpu::ReduceAxis;
using test_helpers::message;
using test_helpers::shape_of;

struct Pool {
  std::vector<uint8_t> memory = std::vector<uint8_t>(1 << 20);
  rt::Arena arena{0, memory.data(), memory.size()};
};

Tensor f32(rt::Arena& arena, std::initializer_list<int64_t> dims, std::initializer_list<float> values) {
  Tensor t = *arena.allocate_tensor(DType::kF32, shape_of(dims), "test");
  std::memcpy(t.data, values.begin(), values.size() * sizeof(float));
  return t;
}

Tensor i32(rt::Arena& arena, std::initializer_list<int64_t> dims, std::initializer_list<int32_t> values) {
  Tensor t = *arena.allocate_tensor(DType::kI32, shape_of(dims), "test");
  std::memcpy(t.data, values.begin(), values.size() * sizeof(int32_t));
  return t;
}

template <class T>
std::vector<T> values_of(const Tensor& t) {
  std::vector<T> out(t.num_elements());
  std::memcpy(out.data(), t.data, out.size() * sizeof(T));
  return out;
}

DistributedValue per_replica(std::initializer_list<Tensor> components) {
  return *DistributedValue::per_replica(rt::Span<const Tensor>(components.begin(), components.size()));
}

}  // namespace

TEST_CASE("reduce SUM and MEAN of PerReplica values without an axis", "[strategy]") {
  Pool pool;
  const DistributedValue v = per_replica({f32(pool.arena, {2}, {1, 2}), f32(pool.arena, {2}, {3, 4}),
                                          f32(pool.arena, {2}, {5, 6}), f32(pool.arena, {2}, {7, 8})});
  auto sum = rt::tpu::cross_replica_reduce(ReduceOp::kSum, v, ReduceAxis::none(), 4, pool.arena);
  REQUIRE(sum);
  CHECK(values_of<float>(*sum) == std::vector<float>{16, 20});
  auto mean = rt::tpu::cross_replica_reduce(ReduceOp::kMean, v, ReduceAxis::none(), 4, pool.arena);
  REQUIRE(mean);
  CHECK(values_of<float>(*mean) == std::vector<float>{4, 5});
}

TEST_CASE("MEAN over 3 replicas multiplies by float32(1/3) as TPUStrategy does", "[strategy]") {
  Pool pool;
  // (1 + 1 + 0) * 0.33333334f = 0.6666667f (the float32 nearest 2/3 is 0.66666669); 3 * 0.33333334f rounds to 1.
  const DistributedValue v =
      per_replica({f32(pool.arena, {2}, {1, 1}), f32(pool.arena, {2}, {1, 1}), f32(pool.arena, {2}, {0, 1})});
  auto mean = rt::tpu::cross_replica_reduce(ReduceOp::kMean, v, ReduceAxis::none(), 3, pool.arena);
  REQUIRE(mean);
  const float third = static_cast<float>(1.0 / 3.0);
  CHECK(values_of<float>(*mean) == std::vector<float>{2.0f * third, 1.0f});
  CHECK(values_of<float>(*mean)[0] == 0.6666667f);
}

TEST_CASE("integer MEAN without an axis scales by int32(1/N): 0 for 2+ replicas", "[strategy]") {
  Pool pool;
  const DistributedValue two = per_replica({i32(pool.arena, {1}, {4}), i32(pool.arena, {1}, {6})});
  auto mean = rt::tpu::cross_replica_reduce(ReduceOp::kMean, two, ReduceAxis::none(), 2, pool.arena);
  REQUIRE(mean);
  CHECK(values_of<int32_t>(*mean) == std::vector<int32_t>{0});
  auto sum = rt::tpu::cross_replica_reduce(ReduceOp::kSum, two, ReduceAxis::none(), 2, pool.arena);
  REQUIRE(sum);
  CHECK(values_of<int32_t>(*sum) == std::vector<int32_t>{10});
}

TEST_CASE("reduce with an axis: SUM sums along it, MEAN is total sum / total count", "[strategy]") {
  Pool pool;
  // Uneven batch of 5 over 2 replicas: rows [1,2],[3,4],[5,6] and [7,8],[9,10].
  const DistributedValue v = per_replica({f32(pool.arena, {3, 2}, {1, 2, 3, 4, 5, 6}),
                                          f32(pool.arena, {2, 2}, {7, 8, 9, 10})});
  auto sum = rt::tpu::cross_replica_reduce(ReduceOp::kSum, v, ReduceAxis::at(0), 2, pool.arena);
  REQUIRE(sum);
  CHECK(values_of<float>(*sum) == std::vector<float>{25, 30});
  auto mean = rt::tpu::cross_replica_reduce(ReduceOp::kMean, v, ReduceAxis::at(0), 2, pool.arena);
  REQUIRE(mean);
  CHECK(sum->shape.rank == 1);
  CHECK(values_of<float>(*mean) == std::vector<float>{5, 6});  // 25 / 5, 30 / 5 (not the mean of means 4.75, 6.25)
  auto last = rt::tpu::cross_replica_reduce(ReduceOp::kMean, v, ReduceAxis::at(-1), 2, pool.arena);
  REQUIRE_FALSE(last);  // shapes [3] and [2] cannot be added
}

TEST_CASE("integer MEAN with an axis divides in float64", "[strategy]") {
  Pool pool;
  const DistributedValue v = per_replica({i32(pool.arena, {2}, {1, 2}), i32(pool.arena, {1}, {4})});
  auto mean = rt::tpu::cross_replica_reduce(ReduceOp::kMean, v, ReduceAxis::at(0), 2, pool.arena);
  REQUIRE(mean);
  CHECK(mean->dtype == DType::kF64);
  CHECK(values_of<double>(*mean) == std::vector<double>{7.0 / 3.0});
}

TEST_CASE("plain values: MEAN returns them, SUM only with one replica, an axis counts them per replica",
          "[strategy]") {
  Pool pool;
  const Tensor x = f32(pool.arena, {2}, {1, 3});
  const DistributedValue plain = DistributedValue::plain(x);
  auto mean = rt::tpu::cross_replica_reduce(ReduceOp::kMean, plain, ReduceAxis::none(), 4, pool.arena);
  REQUIRE(mean);
  CHECK(mean->data == x.data);
  auto one = rt::tpu::cross_replica_reduce(ReduceOp::kSum, plain, ReduceAxis::none(), 1, pool.arena);
  REQUIRE(one);
  CHECK(one->data == x.data);
  auto four = rt::tpu::cross_replica_reduce(ReduceOp::kSum, plain, ReduceAxis::none(), 4, pool.arena);
  REQUIRE_FALSE(four);
  CHECK(message(four.status()) ==
        "A non-DistributedValues value Tensor(shape=[2], dtype=float32) cannot be reduced with the given reduce op "
        "ReduceOp.SUM.");
  auto summed = rt::tpu::cross_replica_reduce(ReduceOp::kSum, plain, ReduceAxis::at(0), 4, pool.arena);
  REQUIRE(summed);
  CHECK(values_of<float>(*summed) == std::vector<float>{16});  // 4 replicas x (1 + 3)
  auto averaged = rt::tpu::cross_replica_reduce(ReduceOp::kMean, plain, ReduceAxis::at(0), 4, pool.arena);
  REQUIRE(averaged);
  CHECK(values_of<float>(*averaged) == std::vector<float>{2});
}

TEST_CASE("reduce error texts and op names", "[strategy]") {
  Pool pool;
  const DistributedValue v =
      per_replica({f32(pool.arena, {2, 2}, {1, 2, 3, 4}), f32(pool.arena, {2, 2}, {1, 2, 3, 4})});
  auto max = rt::tpu::cross_replica_reduce(ReduceOp::kMax, v, ReduceAxis::none(), 2, pool.arena);
  REQUIRE_FALSE(max);
  CHECK(max.status().code() == rt::StatusCode::kUnimplemented);
  CHECK(message(max.status()) ==
        "`reduce_op`=ReduceOp.MAX is not supported. Currently we only support ReduceOp.SUM and ReduceOp.MEAN in "
        "TPUStrategy.");
  for (int64_t axis : {2, -3, 5}) {
    auto bad = rt::tpu::cross_replica_reduce(ReduceOp::kMean, v, ReduceAxis::at(axis), 2, pool.arena);
    REQUIRE_FALSE(bad);
    CHECK(message(bad.status()) == "`axis` = " + std::to_string(axis) + " out of range for `value` with rank 2");
  }
  auto bad_sum = rt::tpu::cross_replica_reduce(ReduceOp::kSum, v, ReduceAxis::at(2), 2, pool.arena);
  REQUIRE_FALSE(bad_sum);
  CHECK(message(bad_sum.status()) == "`axis` = 2 out of range for `value` with rank 2");
  CHECK(*rt::tpu::reduce_op_from_name("sum") == ReduceOp::kSum);
  CHECK(*rt::tpu::reduce_op_from_name("Mean") == ReduceOp::kMean);
  CHECK(*rt::tpu::reduce_op_from_name("MEAN") == ReduceOp::kMean);
  auto unknown = rt::tpu::reduce_op_from_name("max");
  REQUIRE_FALSE(unknown);
  CHECK(message(unknown.status()) == "'MAX' is not a valid ReduceOp");
  CHECK(*rt::tpu::normalize_reduce_axis(-1, 3) == 2);
}

TEST_CASE("scale_by_reciprocal rounds 1/N to float32 then to the dtype", "[strategy]") {
  Pool pool;
  const Tensor x = f32(pool.arena, {3}, {3, 6, 9});
  auto scaled = rt::tpu::scale_by_reciprocal(x, 3, pool.arena);
  REQUIRE(scaled);
  CHECK(values_of<float>(*scaled) == std::vector<float>{1, 2, 3});  // k * 3 * 0.33333334f rounds to k
}

TEST_CASE("reduce and gather refuse components of different shapes or dtypes, naming the replica", "[strategy]") {
  Pool pool;
  const DistributedValue shapes = per_replica({f32(pool.arena, {2}, {1, 2}), f32(pool.arena, {2}, {3, 4}),
                                               f32(pool.arena, {3}, {5, 6, 7})});
  CHECK(message(rt::tpu::cross_replica_reduce(ReduceOp::kSum, shapes, ReduceAxis::none(), 3, pool.arena).status()) ==
        "reduce: replica 2 has a float32 value of shape [3], replica 0 a float32 value of shape [2]; without an axis "
        "every replica's value must have the same shape and dtype");
  const DistributedValue dtypes = per_replica({f32(pool.arena, {2}, {1, 2}), i32(pool.arena, {2}, {3, 4})});
  CHECK(message(rt::tpu::gather_replicas(dtypes, 0, pool.arena).status()) ==
        "gather: replica 1 has a int32 value of shape [2], replica 0 a float32 value of shape [2]; on TPU every "
        "replica's value must have the same shape and dtype");
}
