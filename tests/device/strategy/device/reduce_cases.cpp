// strategy.reduce in cross-replica context on run's PerReplica outputs: SUM and MEAN (also by name),
// with an axis over uneven per-replica batches (MEAN = total sum / total count), plain values, and
// TF's error texts (unsupported op, axis out of range, unknown name, reduce in replica context).
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

Status run_reduce_cases(unsigned cores) {
  Result<TPUStrategy> strategy = TPUStrategy::for_board();
  if (!strategy) return strategy.status();
  RT_RETURN_IF_ERROR(strategy->run({"values_and_batch", values_and_batch}, {}, outputs()));
  const DistributedValue v = outputs()[0], batch = outputs()[1];
  RT_RETURN_IF_ERROR(expect_regrouped(v, cores, "v"));
  RT_RETURN_IF_ERROR(sums_and_means(*strategy, v, batch, cores));
  return reduce_errors(*strategy, v, cores);
}

}  // namespace strategy_test
