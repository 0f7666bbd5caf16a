// strategy.reduce in cross-replica context on run's PerReplica outputs: SUM and MEAN (also by name),
// with an axis over uneven per-replica batches (MEAN = total sum / total count), plain values, and
// TF's error texts (unsupported op, axis out of range, unknown name, reduce in replica context); and
// reduce_to / batch_reduce_to with destinations (the host, or the replicas' devices: Mirrored).
// Replica r returns v_r = [r + 1, 2(r + 1)] and a batch of r + 1 rows [r, 1].
#include "runtime/tensor/hbm.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::ReduceOp;
using rt::tpu::ReduceAxis;

Status values_and_batch(StrategyReplicaContext& context, ReplicaArgs, ReplicaOutputs& out) {
  const float r = static_cast<float>(context.replica_id_in_sync_group());
  const int64_t two[] = {2};
  Result<Tensor> v = f32_tensor(context.arena(), two, {r + 1, 2 * (r + 1)});
  if (!v) return v.status();
  float rows[2 * rt::tpu::kMaxReplicas];
  const unsigned count = context.replica_id_in_sync_group() + 1;
  for (unsigned i = 0; i < count; ++i) rows[2 * i] = r, rows[2 * i + 1] = 1;
  const int64_t shape[] = {count, 2};
  Result<Tensor> batch = f32_tensor(context.arena(), shape, rt::Span<const float>(rows, 2 * count));
  if (!batch) return batch.status();
  RT_RETURN_IF_ERROR(out.add(*v));
  return out.add(*batch);
}

Status reduce_in_replica_context(const TPUStrategy& strategy, StrategyReplicaContext& context) {
  Result<Tensor> x = f32_scalar(context.arena(), 1.0f);
  if (!x) return x.status();
  return strategy.reduce(ReduceOp::kSum, DistributedValue::plain(*x)).status();
}

Status sums_and_means(const TPUStrategy& strategy, const DistributedValue& v, const DistributedValue& batch,
                      unsigned n) {
  const float nf = static_cast<float>(n);
  const float s = nf * (nf + 1) / 2;                  // sum_r (r + 1)
  const float reciprocal = static_cast<float>(1.0 / n);  // TPUStrategy's MEAN: sum * float32(1 / N)
  const float rows_sum = (nf - 1) * nf * (nf + 1) / 3;   // sum_r r (r + 1), column 0 of every row
  struct Case {
    Result<Tensor> got;
    float expected[2];
    const char* what;
  };
  Case cases[] = {
      {strategy.reduce(ReduceOp::kSum, v), {s, 2 * s}, "reduce(SUM, v)"},
      {strategy.reduce(ReduceOp::kMean, v), {s * reciprocal, 2 * s * reciprocal}, "reduce(MEAN, v)"},
      {strategy.reduce("sum", v), {s, 2 * s}, "reduce(\"sum\", v)"},
      {strategy.reduce("MEAN", v), {s * reciprocal, 2 * s * reciprocal}, "reduce(\"MEAN\", v)"},
      {strategy.reduce(ReduceOp::kSum, batch, ReduceAxis::at(0)), {rows_sum, s}, "reduce(SUM, batch, axis=0)"},
      {strategy.reduce(ReduceOp::kMean, batch, ReduceAxis::at(0)), {rows_sum / s, 1}, "reduce(MEAN, batch, axis=0)"},
      {strategy.reduce(ReduceOp::kMean, batch, ReduceAxis::at(-2)), {rows_sum / s, 1}, "reduce(MEAN, batch, axis=-2)"},
  };
  for (Case& c : cases) {
    if (!c.got) return Status::error(c.got.status().code(), "{}: {}", c.what, c.got.status().message());
    RT_RETURN_IF_ERROR(expect_f32(*c.got, rt::Span<const float>(c.expected, 2), c.what));
  }
  return Status::ok();
}

Status reduce_errors(TPUStrategy& strategy, const DistributedValue& v, unsigned n) {
  RT_RETURN_IF_ERROR(expect_error(strategy.reduce(ReduceOp::kMax, v).status(), rt::StatusCode::kUnimplemented,
                                  "`reduce_op`=ReduceOp.MAX is not supported. Currently we only support ReduceOp.SUM "
                                  "and ReduceOp.MEAN in TPUStrategy.",
                                  "reduce(MAX)"));
  RT_RETURN_IF_ERROR(expect_error(strategy.reduce(ReduceOp::kMean, v, ReduceAxis::at(1)).status(),
                                  rt::StatusCode::kInvalidArgument, "`axis` = 1 out of range for `value` with rank 1",
                                  "axis 1 of a vector"));
  RT_RETURN_IF_ERROR(expect_error(strategy.reduce(ReduceOp::kSum, v, ReduceAxis::at(-2)).status(),
                                  rt::StatusCode::kInvalidArgument, "`axis` = -2 out of range for `value` with rank 1",
                                  "axis -2 of a vector"));
  RT_RETURN_IF_ERROR(expect_error(strategy.reduce("min", v).status(), rt::StatusCode::kInvalidArgument,
                                  "'MIN' is not a valid ReduceOp", "reduce(\"min\")"));
  const rt::tpu::StrategyFunction reduces{"reduce_in_replica_context",
                                          [&strategy](StrategyReplicaContext& context, ReplicaArgs, ReplicaOutputs&) {
                                            return reduce_in_replica_context(strategy, context);
                                          }};
  RT_RETURN_IF_ERROR(expect_error(strategy.run(reduces, {}, outputs()),
                                  rt::StatusCode::kFailedPrecondition,
                                  "Method requires being in cross-replica context, use "
                                  "get_replica_context().merge_call()",
                                  "reduce in replica context"));
  Result<Tensor> x = f32_scalar(rt::hbm(), 5.0f);
  if (!x) return x.status();
  Result<Tensor> mean = strategy.reduce(ReduceOp::kMean, DistributedValue::plain(*x));
  if (!mean) return mean.status();
  RT_RETURN_IF_ERROR(expect_f32(*mean, {5.0f}, "reduce(MEAN, plain value)"));
  Result<Tensor> sum = strategy.reduce(ReduceOp::kSum, DistributedValue::plain(*x));
  if (n == 1) return sum ? expect_f32(*sum, {5.0f}, "reduce(SUM, plain value), one replica") : sum.status();
  return expect_error(sum.status(), rt::StatusCode::kInvalidArgument,
                      "A non-DistributedValues value Tensor(shape=[], dtype=float32) cannot be reduced with the given "
                      "reduce op ReduceOp.SUM.",
                      "reduce(SUM, plain value)");
}

}  // namespace

// reduce_to and batch_reduce_to: a_r = r + 1 to the host (plain: N(N+1)/2, MEAN (N+1)/2); b_r =
// [r, 2r] to the devices of a mirrored value (Mirrored: every replica gets [N(N-1)/2, N(N-1)]); a
// failing pair (mismatched shapes) resets every result. The values live in static storage: a
// distributed value has room for a tensor per replica of the pod (64: 10.5 KiB), and a dozen of them
// would take half of a core's 256 KiB stack.
struct ReduceToValues {
  Tensor as[rt::tpu::kMaxReplicas], bs[rt::tpu::kMaxReplicas], odd[rt::tpu::kMaxReplicas];
  DistributedValue a, b, odd_b, mirrored, placed;
  rt::tpu::ValueDestination pairs[2];
  DistributedValue results[2];
};
ReduceToValues reduce_to_values;

Status reduce_to_destinations(TPUStrategy& strategy, unsigned n) {
  ReduceToValues& v = reduce_to_values;
  const int64_t two[] = {2}, three[] = {3};
  for (unsigned r = 0; r < n; ++r) {
    const float rf = static_cast<float>(r);
    v.as[r] = RT_TRY(f32_scalar(rt::hbm(), rf + 1.0f));
    v.bs[r] = RT_TRY(f32_tensor(rt::hbm(), two, {rf, 2.0f * rf}));
    v.odd[r] = r == n - 1 && n > 1 ? RT_TRY(f32_tensor(rt::hbm(), three, {0, 0, 0})) : v.bs[r];
  }
  v.a = RT_TRY(DistributedValue::per_replica(rt::Span<const Tensor>(v.as, n)));
  v.b = RT_TRY(DistributedValue::per_replica(rt::Span<const Tensor>(v.bs, n)));
  v.odd_b = RT_TRY(DistributedValue::per_replica(rt::Span<const Tensor>(v.odd, n)));
  v.mirrored = RT_TRY(strategy.broadcast(DistributedValue::plain(v.bs[0])));
  const float sum_a = static_cast<float>(n * (n + 1) / 2), sum_b = static_cast<float>(n * (n - 1) / 2);
  v.placed = RT_TRY(strategy.reduce_to(rt::ReduceOp::kSum, v.a, rt::tpu::Destinations::host()));
  if (v.placed.is_distributed()) return rt::internal_error("reduce_to the host gave a {}", value_kind_name(v.placed.kind()));
  RT_RETURN_IF_ERROR(expect_f32(v.placed.component(0), {sum_a}, "reduce_to(SUM, a, host)"));
  v.placed = RT_TRY(strategy.reduce_to(rt::ReduceOp::kMean, v.a, rt::tpu::Destinations::host()));
  const float mean_a = sum_a * (1.0f / static_cast<float>(n));  // TPUStrategy's MEAN: the sum times float32(1 / N)
  RT_RETURN_IF_ERROR(expect_f32(v.placed.component(0), {mean_a}, "reduce_to(MEAN, a, host)"));
  v.pairs[0] = {v.a, rt::tpu::Destinations::host()};
  v.pairs[1] = {v.b, rt::tpu::Destinations::devices_of(v.mirrored)};
  RT_RETURN_IF_ERROR(strategy.batch_reduce_to(rt::ReduceOp::kSum, v.pairs, v.results));
  RT_RETURN_IF_ERROR(expect_f32(v.results[0].component(0), {sum_a}, "batch_reduce_to pair 0"));
  if (v.results[1].kind() != rt::tpu::ValueKind::kMirrored)
    return rt::internal_error("batch_reduce_to pair 1: a {} value, expected Mirrored", value_kind_name(v.results[1].kind()));
  for (unsigned r = 0; r < n; ++r)
    RT_RETURN_IF_ERROR(expect_f32(v.results[1].component(r), {sum_b, 2.0f * sum_b}, "batch_reduce_to pair 1"));
  // contrib's aggregations: ONLY_FIRST_TOWER is replica 0's value (a_0 = 1), to the host or mirrored.
  using rt::tpu::VariableAggregation;
  v.placed = RT_TRY(strategy.reduce_to(VariableAggregation::kOnlyFirstReplica, v.a, rt::tpu::Destinations::host()));
  RT_RETURN_IF_ERROR(expect_f32(v.placed.component(0), {1.0f}, "reduce(ONLY_FIRST_TOWER, a, host)"));
  v.placed = RT_TRY(strategy.reduce_to(VariableAggregation::kOnlyFirstReplica, v.b, rt::tpu::Destinations::devices_of(v.mirrored)));
  for (unsigned r = 0; r < n; ++r)
    RT_RETURN_IF_ERROR(expect_f32(v.placed.component(r), {0.0f, 0.0f}, "reduce(ONLY_FIRST_TOWER, b, mirrored)"));
  v.placed = RT_TRY(strategy.reduce_to(VariableAggregation::kSum, v.a, rt::tpu::Destinations::host()));
  RT_RETURN_IF_ERROR(expect_f32(v.placed.component(0), {sum_a}, "reduce(SUM aggregation, a, host)"));
  RT_RETURN_IF_ERROR(expect_error(strategy.reduce_to(VariableAggregation::kNone, v.a, rt::tpu::Destinations::host()).status(),
                                  rt::StatusCode::kInvalidArgument,
                                  "Could not convert from `tf.VariableAggregation` VariableAggregation.NONE "
                                  "to`tf.distribute.ReduceOp` type", "reduce(NONE)"));
  if (n > 1) {
    v.pairs[1] = {v.odd_b, rt::tpu::Destinations::host()};
    if (strategy.batch_reduce_to(rt::ReduceOp::kSum, v.pairs, v.results).is_ok())
      return rt::internal_error("batch_reduce_to of mismatched shapes succeeded");
    if (v.results[0].component(0).data != nullptr || v.results[1].component(0).data != nullptr)
      return rt::internal_error("a failed batch_reduce_to left a result");
  }
  return Status::ok();
}

Status run_reduce_cases(unsigned cores) {
  Result<TPUStrategy> strategy = TPUStrategy::for_board();
  if (!strategy) return strategy.status();
  RT_RETURN_IF_ERROR(strategy->run({"values_and_batch", values_and_batch}, {}, outputs()));
  const DistributedValue v = outputs()[0], batch = outputs()[1];
  RT_RETURN_IF_ERROR(expect_regrouped(v, cores, "v"));
  RT_RETURN_IF_ERROR(sums_and_means(*strategy, v, batch, cores));
  RT_RETURN_IF_ERROR(reduce_errors(*strategy, v, cores));
  return reduce_to_destinations(*strategy, cores);
}

}  // namespace strategy_test
