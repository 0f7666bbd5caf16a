// ReplicaContext.merge_call: TF's seed example
//   fn(three) { v = three + replica_id; s = merge_call(sum over replicas of v); return s + v; }
// so v_r = 3 + r, s = sum_r v_r = 3N + N(N - 1)/2, result_r = s + v_r; merge_fn running once, on
// replica 0's core, in cross-replica context; PerReplica results handing each replica its own part;
// and the errors: different numbers of merge_calls, merge_call outside a replica context (the
// program, plain replicate computation, inside merge_fn), a failing merge_fn, a replica failing
// while its peers wait in merge_call, and one failing while its peers wait in an all_reduce (the
// launch reports that failure, not the collective mismatch its end meets in the peers' all_reduce).
// After every error the pod keeps working (the seed runs again).
#include "hal/core.hpp"
#include "firmware/tpu_pod.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::tpu::MergeOutputs;
using rt::tpu::MergeResult;

unsigned merge_fn_runs = 0;       // written by merge_fn (replica 0's core), read after run returns
unsigned merge_fn_core = ~0u;
bool merge_fn_cross_replica = false;

Status sum_over_replicas(TPUStrategy& strategy, rt::Span<const DistributedValue> args, MergeResult& result) {
  ++merge_fn_runs;
  merge_fn_core = hal::core_id();
  merge_fn_cross_replica = rt::tpu::current_strategy_replica_context() == nullptr;
  Result<Tensor> sum = strategy.reduce(rt::ReduceOp::kSum, args[0]);
  if (!sum) return sum.status();
  return result.add(DistributedValue::plain(*sum));
}

Result<Tensor> three_plus_replica_id(StrategyReplicaContext& context, const Tensor& three) {
  Result<Tensor> id = f32_scalar(context.arena(), static_cast<float>(context.replica_id_in_sync_group()));
  if (!id) return id;
  return add(context.arena(), three, *id);
}

// The seed example, merge_call through get_replica_context() (the free function).
Status seed_fn(StrategyReplicaContext& context, ReplicaArgs args, ReplicaOutputs& out) {
  Result<Tensor> v = three_plus_replica_id(context, args[0]);
  if (!v) return v.status();
  const Tensor merge_args[] = {*v};
  MergeOutputs merged;
  RT_RETURN_IF_ERROR(rt::tpu::merge_call(sum_over_replicas, merge_args, merged));
  Result<Tensor> result = add(context.arena(), merged[0], *v);
  if (!result) return result.status();
  return out.add(*result);
}

Status run_seed(TPUStrategy& strategy, unsigned n, unsigned replica0_core) {
  Result<Tensor> three = f32_scalar(rt::hbm(), 3.0f);
  if (!three) return three.status();
  const DistributedValue args[] = {DistributedValue::plain(*three)};
  merge_fn_runs = 0;
  RT_RETURN_IF_ERROR(strategy.run({"seed_fn", seed_fn}, args, outputs()));
  if (merge_fn_runs != 1 || merge_fn_core != replica0_core || !merge_fn_cross_replica)
    return rt::internal_error("merge_fn ran {} times, last on core {} (cross-replica {}); expected once on core {}",
                              merge_fn_runs, merge_fn_core, merge_fn_cross_replica, replica0_core);
  RT_RETURN_IF_ERROR(expect_regrouped(outputs()[0], n, "seed example"));
  const float s = 3.0f * static_cast<float>(n) + static_cast<float>(n * (n - 1) / 2);
  for (unsigned r = 0; r < n; ++r)
    RT_RETURN_IF_ERROR(expect_f32(outputs()[0].component(r), {s + 3.0f + static_cast<float>(r)}, "seed s + v"));
  return Status::ok();
}

// merge_fn returning the gathered PerReplica itself and a plain constant: replica r gets v_r and 7.
Status echo_merge(TPUStrategy&, rt::Span<const DistributedValue> args, MergeResult& result) {
  RT_RETURN_IF_ERROR(result.add(args[0]));
  Result<Tensor> seven = f32_scalar(rt::hbm(), 7.0f);
  if (!seven) return seven.status();
  return result.add(DistributedValue::plain(*seven));
}

Status echo_fn(StrategyReplicaContext& context, ReplicaArgs args, ReplicaOutputs& out) {
  Result<Tensor> v = three_plus_replica_id(context, args[0]);
  if (!v) return v.status();
  const Tensor merge_args[] = {*v};
  MergeOutputs merged;
  RT_RETURN_IF_ERROR(context.merge_call(echo_merge, merge_args, merged));
  RT_RETURN_IF_ERROR(out.add(merged[0]));
  return out.add(merged[1]);
}

Status per_replica_parts(TPUStrategy& strategy, unsigned n) {
  Result<Tensor> three = f32_scalar(rt::hbm(), 3.0f);
  if (!three) return three.status();
  const DistributedValue args[] = {DistributedValue::plain(*three)};
  RT_RETURN_IF_ERROR(strategy.run({"echo_fn", echo_fn}, args, outputs()));
  for (unsigned r = 0; r < n; ++r) {
    RT_RETURN_IF_ERROR(expect_f32(outputs()[0].component(r), {3.0f + static_cast<float>(r)}, "PerReplica part"));
    RT_RETURN_IF_ERROR(expect_f32(outputs()[1].component(r), {7.0f}, "plain part"));
  }
  return Status::ok();
}

// Replica 0 merges once, the others never (variant 0); or the last replica merges twice, the others
// once (variant 1).
Status uneven_merges(int variant, StrategyReplicaContext& context, ReplicaArgs args) {
  const unsigned r = context.replica_id_in_sync_group(), n = context.num_replicas_in_sync();
  const bool twice_on_last = variant == 1;
  const unsigned calls = twice_on_last ? (r + 1 == n ? 2 : 1) : (r == 0 ? 1 : 0);
  const Tensor merge_args[] = {args[0]};
  MergeOutputs merged;
  for (unsigned i = 0; i < calls; ++i) RT_RETURN_IF_ERROR(context.merge_call(sum_over_replicas, merge_args, merged));
  return Status::ok();
}

Status different_merge_counts(TPUStrategy& strategy, unsigned n) {
  if (n < 2) return Status::ok();
  Result<Tensor> one = f32_scalar(rt::hbm(), 1.0f);
  if (!one) return one.status();
  const DistributedValue args[] = {DistributedValue::plain(*one)};
  for (int variant : {0, 1}) {
    const char* what = variant == 0 ? "merge_call on replica 0 only" : "two merge_calls on the last replica";
    const rt::tpu::StrategyFunction uneven{
        "uneven_merges",
        [variant](StrategyReplicaContext& context, ReplicaArgs merge_args, ReplicaOutputs&) {
          return uneven_merges(variant, context, merge_args);
        }};
    RT_RETURN_IF_ERROR(expect_error(strategy.run(uneven, args, outputs()),
                                    rt::StatusCode::kFailedPrecondition,
                                    "Some replicas made a different number of replica_context().merge_call() calls.",
                                    what));
  }
  return Status::ok();
}

Status calls_merge(TPUStrategy&, rt::Span<const DistributedValue>, MergeResult&) {
  MergeOutputs merged;
  return rt::tpu::merge_call(echo_merge, {}, merged);
}

Status refusing_merge(TPUStrategy&, rt::Span<const DistributedValue>, MergeResult&) {
  return rt::invalid_argument("merge_fn refuses");
}

const rt::tpu::MergeFn calls_merge_fn = calls_merge;
const rt::tpu::MergeFn refusing_merge_fn = refusing_merge;
const rt::tpu::MergeFn sum_over_replicas_fn = sum_over_replicas;

// A strategy function whose replicas merge_call with *merge_fn; with no merge_fn, the last replica
// fails first and the others merge_call with sum_over_replicas.
rt::tpu::StrategyFunction merges_with(const rt::tpu::MergeFn* merge_fn) {
  return {"merges_with", [merge_fn](StrategyReplicaContext& context, ReplicaArgs, ReplicaOutputs&) {
            if (merge_fn == nullptr && context.replica_id_in_sync_group() + 1 == context.num_replicas_in_sync())
              return rt::invalid_argument("replica {} gave up", context.replica_id_in_sync_group());
            MergeOutputs merged;
            return context.merge_call(merge_fn != nullptr ? *merge_fn : sum_over_replicas_fn, {}, merged);
          }};
}

// The last replica fails first; the others all_reduce (a collective of the function, not merge_call).
rt::tpu::StrategyFunction all_reduce_after_a_failure() {
  return {"all_reduce_after_a_failure", [](StrategyReplicaContext& context, ReplicaArgs, ReplicaOutputs&) -> Status {
            if (context.replica_id_in_sync_group() + 1 == context.num_replicas_in_sync())
              return rt::invalid_argument("replica {} gave up", context.replica_id_in_sync_group());
            const Tensor values = RT_TRY(rt::constant<float>(context.arena(), {4}, {1, 2, 3, 4}));
            return context.all_reduce(rt::ReduceOp::kSum, values).status();
          }};
}

Status plain_replicate_merge(rt::tpu::ReplicaContext&, ReplicaArgs, ReplicaOutputs&) {
  MergeOutputs merged;
  return rt::tpu::merge_call(echo_merge, {}, merged);
}

Status merge_errors(TPUStrategy& strategy, unsigned n) {
  MergeOutputs merged;
  const char* outside = "Need to be inside `call_for_each_replica()`";
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::merge_call(echo_merge, {}, merged), rt::StatusCode::kFailedPrecondition,
                                  outside, "merge_call in the program"));
  RT_RETURN_IF_ERROR(expect_error(strategy.run(merges_with(&calls_merge_fn), {}, outputs()),
                                  rt::StatusCode::kFailedPrecondition, outside, "merge_call inside merge_fn"));
  RT_RETURN_IF_ERROR(expect_error(strategy.run(merges_with(&refusing_merge_fn), {}, outputs()),
                                  rt::StatusCode::kInvalidArgument, "merge_fn refuses", "a failing merge_fn"));
  rt::FixedString<64> gave_up;
  rt::format_to(gave_up, "replica {} gave up", n - 1);
  RT_RETURN_IF_ERROR(expect_error(strategy.run(merges_with(nullptr), {}, outputs()), rt::StatusCode::kInvalidArgument,
                                  gave_up.view(), "a replica failing before merge_call"));
  return expect_error(strategy.run(all_reduce_after_a_failure(), {}, outputs()), rt::StatusCode::kInvalidArgument,
                      gave_up.view(), "a replica failing while its peers all_reduce");
}

Status plain_replicate_refuses(unsigned n) {
  static rt::tpu::ReplicateResult result;
  const rt::tpu::Computation computation{"plain_replicate_merge", plain_replicate_merge, {0}};
  rt::tpu::ReplicaArgs inputs[rt::tpu::kMaxReplicas];
  return expect_error(rt::tpu::replicate(computation, rt::Span<const rt::tpu::ReplicaArgs>(inputs, n), {}, result),
                      rt::StatusCode::kFailedPrecondition, "Need to be inside `call_for_each_replica()`",
                      "merge_call in a plain replicate computation");
}

}  // namespace

// The seed example as the README shows it: lambdas, values returned (strategy.run(fn, three) and
// merge_call(merge_fn, value)), checked against the same hand-computed sums as run_seed.
Status lambda_seed(unsigned n) {
  rt::tpu::PodMemoryScope memory(n);
  auto merge_fn = [](TPUStrategy& strategy, const DistributedValue& value) { return strategy.reduce(rt::ReduceOp::kSum, value); };
  auto fn = [merge_fn](StrategyReplicaContext& context, const Tensor& three) -> Result<Tensor> {
    const Tensor id = RT_TRY(rt::scalar(context.arena(), static_cast<float>(context.replica_id_in_sync_group())));
    const Tensor value = RT_TRY(rt::add(context.arena(), three, id));
    const Tensor s = RT_TRY(context.merge_call(merge_fn, value));
    return rt::add(context.arena(), s, value);
  };
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board());
  const rt::tpu::RunResult output = RT_TRY(strategy.run(fn, RT_TRY(rt::scalar(rt::hbm(), 3.0f))));
  RT_RETURN_IF_ERROR(expect_regrouped(output[0], n, "seed example with lambdas"));
  const float s = 3.0f * static_cast<float>(n) + static_cast<float>(n * (n - 1) / 2);
  for (unsigned r = 0; r < n; ++r)
    if (output[0].component(r).scalar<float>() != s + 3.0f + static_cast<float>(r))
      return rt::internal_error("seed example with lambdas: replica {} got {}, expected {}", r,
                                output[0].component(r).scalar<float>(), s + 3.0f + static_cast<float>(r));
  // merge_fn's arity comes from its parameters: two values given to a one-value merge_fn is an error.
  auto two_values = [merge_fn](StrategyReplicaContext& context, const Tensor& three) -> Result<Tensor> {
    return context.merge_call(merge_fn, three, three);
  };
  const Result<rt::tpu::RunResult> refused = strategy.run(two_values, RT_TRY(rt::scalar(rt::hbm(), 3.0f)));
  if (refused || refused.status().message() != rt::StringView("merge_fn takes 1 arguments, merge_call gave it 2"))
    return rt::internal_error("merge_call with two values for a one-value merge_fn: {}",
                              refused ? "succeeded" : refused.status().c_str());
  return Status::ok();
}

Status run_merge_cases(unsigned cores) {
  Result<TPUStrategy> strategy = TPUStrategy::for_board();
  if (!strategy) return strategy.status();
  RT_RETURN_IF_ERROR(lambda_seed(cores));
  RT_RETURN_IF_ERROR(run_seed(*strategy, cores, 0));
  RT_RETURN_IF_ERROR(per_replica_parts(*strategy, cores));
  RT_RETURN_IF_ERROR(different_merge_counts(*strategy, cores));
  RT_RETURN_IF_ERROR(run_seed(*strategy, cores, 0));
  RT_RETURN_IF_ERROR(merge_errors(*strategy, cores));
  RT_RETURN_IF_ERROR(plain_replicate_refuses(cores));
  RT_RETURN_IF_ERROR(run_seed(*strategy, cores, 0));
  if (cores < 2) return Status::ok();
  // Two replicas under a device assignment: merge_fn runs on replica 0's core, wherever it is.
  Result<rt::tpu::Topology> topology = rt::tpu::Topology::for_cores(static_cast<int>(cores));
  if (!topology) return topology.status();
  Result<rt::tpu::DeviceAssignment> assignment = rt::tpu::DeviceAssignment::build(*topology, {}, {}, 2);
  if (!assignment) return assignment.status();
  rt::tpu::StrategyOptions options;
  options.device_assignment = &*assignment;
  Result<TPUStrategy> two = TPUStrategy::create(strategy->cluster_resolver(), options);
  if (!two) return two.status();
  return run_seed(*two, 2, static_cast<unsigned>(assignment->core_of(0, 0)));
}

}  // namespace strategy_test
