// Construction (the board's cluster resolver, num_replicas_in_sync with and without a device
// assignment, steps_per_run) and strategy.run: per-replica and plain arguments, replica ids,
// regrouped outputs (plain with one replica), all_reduce (of one value and of a list) and broadcast
// in replica context, and the argument errors.
#include "runtime/tensor/hbm.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {


// Returns x + y and [replica_id_in_sync_group, num_replicas_in_sync].
Status add_and_identify(StrategyReplicaContext& context, ReplicaArgs args, ReplicaOutputs& out) {
  Result<Tensor> sum = add(context.arena(), args[0], args[1]);
  if (!sum) return sum.status();
  const int64_t two[] = {2};
  Result<Tensor> id = f32_tensor(context.arena(), two,
                                 {static_cast<float>(context.replica_id_in_sync_group()),
                                  static_cast<float>(context.num_replicas_in_sync())});
  if (!id) return id.status();
  RT_RETURN_IF_ERROR(out.add(*sum));
  return out.add(*id);
}

Status basic_run(TPUStrategy& strategy, unsigned n) {
  Tensor xs[rt::tpu::kMaxReplicas];
  const int64_t one[] = {1};
  for (unsigned r = 0; r < n; ++r) {
    Result<Tensor> x = f32_tensor(rt::hbm(), one, {10.0f * static_cast<float>(r)});
    if (!x) return x.status();
    xs[r] = *x;
  }
  Result<Tensor> y = f32_tensor(rt::hbm(), one, {1.0f});
  if (!y) return y.status();
  Result<DistributedValue> x = DistributedValue::per_replica(rt::Span<const Tensor>(xs, n));
  if (!x) return x.status();
  const DistributedValue args[] = {*x, DistributedValue::plain(*y)};
  RT_RETURN_IF_ERROR(strategy.run({"add_and_identify", add_and_identify}, args, outputs()));
  if (outputs().size() != 2) return rt::internal_error("run returned {} values, expected 2", outputs().size());
  RT_RETURN_IF_ERROR(expect_regrouped(outputs()[0], n, "run output 0"));
  RT_RETURN_IF_ERROR(expect_regrouped(outputs()[1], n, "run output 1"));
  for (unsigned r = 0; r < n; ++r) {
    RT_RETURN_IF_ERROR(expect_f32(outputs()[0].component(r), {10.0f * static_cast<float>(r) + 1.0f}, "x + y"));
    RT_RETURN_IF_ERROR(expect_f32(outputs()[1].component(r), {static_cast<float>(r), static_cast<float>(n)},
                                  "[replica_id_in_sync_group, num_replicas_in_sync]"));
  }
  return Status::ok();
}

// v = [N(r + 1), 2N(r + 1)]: multiples of N, so MEAN's scaling by float32(1 / N) is exact.
Result<Tensor> multiples_of_n(StrategyReplicaContext& context) {
  const float n = static_cast<float>(context.num_replicas_in_sync());
  const float r1 = static_cast<float>(context.replica_id_in_sync_group() + 1);
  const int64_t two[] = {2};
  return f32_tensor(context.arena(), two, {n * r1, 2 * n * r1});
}

// all_reduce SUM, MEAN, "sum", "mean", then broadcast: five outputs; then the two op errors.
Status reduce_in_replica(StrategyReplicaContext& context, ReplicaArgs, ReplicaOutputs& out) {
  Result<Tensor> v = multiples_of_n(context);
  if (!v) return v.status();
  Result<Tensor> reduced[] = {context.all_reduce(rt::ReduceOp::kSum, *v), context.all_reduce(rt::ReduceOp::kMean, *v),
                              context.all_reduce("sum", *v), context.all_reduce("Mean", *v), context.broadcast(*v)};
  for (const Result<Tensor>& value : reduced) {
    if (!value) return value.status();
    RT_RETURN_IF_ERROR(out.add(*value));
  }
  RT_RETURN_IF_ERROR(expect_error(context.all_reduce("max", *v).status(), rt::StatusCode::kInvalidArgument,
                                  "'MAX' is not a valid ReduceOp", "all_reduce(\"max\")"));
  return expect_error(context.all_reduce(rt::ReduceOp::kMax, *v).status(), rt::StatusCode::kUnimplemented,
                      "`reduce_op`=ReduceOp.MAX is not supported. Currently we only support ReduceOp.SUM and "
                      "ReduceOp.MEAN in TPUStrategy.",
                      "all_reduce(MAX)");
}

// What the replicas' multiples_of_n values reduce to: [sum, 2 sum] and [mean, 2 mean].
struct MultiplesReduced {
  float sum;   // sum_r N(r + 1)
  float mean;  // sum_r N(r + 1) * (1 / N)
};
MultiplesReduced multiples_reduced(unsigned n) {
  const float nf = static_cast<float>(n);
  return {nf * nf * (nf + 1) / 2, nf * (nf + 1) / 2};
}

Status replica_context_collectives(TPUStrategy& strategy, unsigned n) {
  RT_RETURN_IF_ERROR(strategy.run({"reduce_in_replica", reduce_in_replica}, {}, outputs()));
  const float nf = static_cast<float>(n);
  const auto [sum, mean] = multiples_reduced(n);
  for (unsigned r = 0; r < n; ++r) {
    RT_RETURN_IF_ERROR(expect_f32(outputs()[0].component(r), {sum, 2 * sum}, "all_reduce(SUM)"));
    RT_RETURN_IF_ERROR(expect_f32(outputs()[1].component(r), {mean, 2 * mean}, "all_reduce(MEAN)"));
    RT_RETURN_IF_ERROR(expect_f32(outputs()[2].component(r), {sum, 2 * sum}, "all_reduce(\"sum\")"));
    RT_RETURN_IF_ERROR(expect_f32(outputs()[3].component(r), {mean, 2 * mean}, "all_reduce(\"Mean\")"));
    RT_RETURN_IF_ERROR(expect_f32(outputs()[4].component(r), {nf, 2 * nf}, "broadcast: replica 0's value"));
  }
  return Status::ok();
}

// all_reduce of a list (TF's all_reduce of a structure): float32 [2], an int32 scalar and float32 [3]
// summed in one call, then the float values' MEAN; a MEAN over the int32 value is refused.
Status list_reduce_in_replica(StrategyReplicaContext& context, ReplicaArgs, ReplicaOutputs& out) {
  const int64_t three[] = {3};
  const float r = static_cast<float>(context.replica_id_in_sync_group());
  const Tensor values[] = {RT_TRY(multiples_of_n(context)),
                           RT_TRY(rt::scalar(context.arena(), static_cast<int32_t>(context.replica_id_in_sync_group()) + 1)),
                           RT_TRY(f32_tensor(context.arena(), three, {10 * r, 1, -r}))};
  Tensor sums[3], means[2];
  RT_RETURN_IF_ERROR(context.all_reduce(rt::ReduceOp::kSum, values, sums));
  const Tensor floats[] = {values[0], values[2]};
  RT_RETURN_IF_ERROR(context.all_reduce(rt::ReduceOp::kMean, floats, means));
  for (const Tensor& value : sums) RT_RETURN_IF_ERROR(out.add(value));
  for (const Tensor& value : means) RT_RETURN_IF_ERROR(out.add(value));
  Tensor refused[3];
  return expect_error(context.all_reduce(rt::ReduceOp::kMean, values, refused), rt::StatusCode::kInvalidArgument,
                      "all_reduce: ReduceOp.MEAN scales the value by 1 / num_replicas_in_sync before summing, which "
                      "needs a floating-point value; got int32 (value 1)",
                      "all_reduce(MEAN) of a list holding int32");
}

Status list_collectives(TPUStrategy& strategy, unsigned n) {
  RT_RETURN_IF_ERROR(strategy.run({"list_reduce_in_replica", list_reduce_in_replica}, {}, outputs()));
  const float nf = static_cast<float>(n);
  const auto [sum, mean] = multiples_reduced(n);
  const float ids = nf * (nf - 1) / 2;  // sum_r r
  const float scale = 1.0f / nf;        // MEAN: each value times float32(1 / N)
  float tens = 0, ones = 0, negatives = 0;  // value 2's MEAN: each replica's value scaled, summed in replica order
  for (unsigned k = 0; k < n; ++k) {
    tens += (10 * static_cast<float>(k)) * scale;
    ones += 1.0f * scale;
    negatives += -static_cast<float>(k) * scale;
  }
  for (unsigned r = 0; r < n; ++r) {
    RT_RETURN_IF_ERROR(expect_f32(outputs()[0].component(r), {sum, 2 * sum}, "all_reduce(SUM) of a list: value 0"));
    const Tensor count = outputs()[1].component(r);
    if (count.dtype != rt::DType::kI32 || count.shape.rank != 0 || count.at<int32_t>() != static_cast<int32_t>(n * (n + 1) / 2))
      return rt::Status::error(rt::StatusCode::kInternal, "all_reduce(SUM) of a list: the int32 value is not {}",
                               n * (n + 1) / 2);
    RT_RETURN_IF_ERROR(expect_f32(outputs()[2].component(r), {10 * ids, nf, -ids}, "all_reduce(SUM) of a list: value 2"));
    RT_RETURN_IF_ERROR(expect_f32(outputs()[3].component(r), {mean, 2 * mean}, "all_reduce(MEAN) of a list: value 0"));
    RT_RETURN_IF_ERROR(expect_f32(outputs()[4].component(r), {tens, ones, negatives}, "all_reduce(MEAN) of a list: value 1"));
  }
  return Status::ok();
}

Status uneven_outputs(StrategyReplicaContext& context, ReplicaArgs, ReplicaOutputs& out) {
  const unsigned count = context.replica_id_in_sync_group() == 0 ? 1 : 2;
  for (unsigned i = 0; i < count; ++i) {
    Result<Tensor> value = f32_scalar(context.arena(), 1.0f);
    if (!value) return value.status();
    RT_RETURN_IF_ERROR(out.add(*value));
  }
  return Status::ok();
}

Status argument_errors(TPUStrategy& strategy, unsigned n) {
  if (n < 2) return Status::ok();
  Result<Tensor> x = f32_scalar(rt::hbm(), 1.0f);
  if (!x) return x.status();
  Result<DistributedValue> one = DistributedValue::per_replica(rt::Span<const Tensor>(&*x, 1));
  if (!one) return one.status();
  rt::FixedString<160> text;
  rt::format_to(text, "argument 0 is a PerReplica value with 1 components, but the strategy has {} replicas", n);
  const rt::Span<const DistributedValue> args(&*one, 1);
  RT_RETURN_IF_ERROR(expect_error(strategy.run({"add_and_identify", add_and_identify}, args, outputs()),
                                  rt::StatusCode::kInvalidArgument, text.view(), "PerReplica of the wrong size"));
  return expect_error(strategy.run({"uneven_outputs", uneven_outputs}, {}, outputs()), rt::StatusCode::kInvalidArgument,
                      "replica 1 returned 2 values, replica 0 returned 1", "replicas returning different counts");
}

}  // namespace

Status run_construction_cases(unsigned cores) {
  Result<TPUStrategy> strategy = TPUStrategy::for_board();
  if (!strategy) return strategy.status();
  if (strategy->num_replicas_in_sync() != cores || strategy->steps_per_run() != 1 ||
      strategy->device_assignment() != nullptr || strategy->cluster_resolver().num_cores() != cores)
    return rt::internal_error("for_board: {} replicas, steps_per_run {}, expected {} and 1",
                              strategy->num_replicas_in_sync(), strategy->steps_per_run(), cores);
  Result<rt::tpu::Topology> topology = strategy->cluster_resolver().initialize_tpu_system();
  if (!topology) return topology.status();
  const unsigned half = cores >= 2 ? cores / 2 : 1;
  Result<rt::tpu::DeviceAssignment> assignment =
      rt::tpu::DeviceAssignment::build(*topology, {}, {}, static_cast<int>(half));
  if (!assignment) return assignment.status();
  rt::tpu::StrategyOptions options;
  options.device_assignment = &*assignment;
  options.steps_per_run = 4;
  Result<TPUStrategy> assigned = TPUStrategy::create(strategy->cluster_resolver(), options);
  if (!assigned) return assigned.status();
  if (assigned->num_replicas_in_sync() != half || assigned->steps_per_run() != 4)
    return rt::internal_error("with a device assignment of {} replicas: num_replicas_in_sync {}, steps_per_run {}",
                              half, assigned->num_replicas_in_sync(), assigned->steps_per_run());
  RT_RETURN_IF_ERROR(basic_run(*assigned, half));  // the replicas on the assignment's cores
  options.steps_per_run = 0;
  return expect_error(TPUStrategy::create(strategy->cluster_resolver(), options).status(),
                      rt::StatusCode::kInvalidArgument, "steps_per_run must be positive, got 0", "steps_per_run 0");
}

Status run_run_cases(unsigned cores) {
  Result<TPUStrategy> strategy = TPUStrategy::for_board();
  if (!strategy) return strategy.status();
  RT_RETURN_IF_ERROR(basic_run(*strategy, cores));
  RT_RETURN_IF_ERROR(replica_context_collectives(*strategy, cores));
  RT_RETURN_IF_ERROR(list_collectives(*strategy, cores));
  return argument_errors(*strategy, cores);
}

}  // namespace strategy_test
