// Structures through TPUStrategy (nest.hpp, per_replica.hpp): run() with a struct argument (plain)
// and a PerReplica struct argument, a function returning a struct (a PerReplica<struct> back, its
// fields and replicas), reduce of a whole structure, ReplicaContext.all_reduce of a structure, and a
// model-sized structure (40 tensors: more than one all_reduce group, more than the old caps).
// Replica r's batch is x = [r + 1, 2(r + 1)], y = 10r; the plain scale k = 3. Expected values are
// the hand formulas below (sums over r = 0..N-1: sum(r) = N(N-1)/2).
#include "runtime/tensor/hbm.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::Array;
using rt::ReduceOp;
using rt::tpu::PerReplica;
using rt::tpu::ValueContext;

struct Batch {
  Tensor x, y;
};
struct Scale {
  Tensor k;
};
struct Grads {
  Tensor w;
  Array<Tensor, 2> b;
};
struct Step {
  Tensor loss;
  Grads grads;
};

constexpr size_t kWide = 40;  // a model-sized structure
using Wide = Array<Tensor, kWide>;

float sum_of_r(unsigned n) { return static_cast<float>(n * (n - 1)) / 2.0f; }

Result<PerReplica<Batch>> replica_batches(const TPUStrategy& strategy) {
  return strategy.experimental_distribute_values_from_function([](const ValueContext& context) -> Result<Batch> {
    const float r = static_cast<float>(context.replica_id_in_sync_group);
    const int64_t pair[] = {2};
    return Batch{RT_TRY(f32_tensor(rt::hbm(), pair, {r + 1.0f, 2.0f * (r + 1.0f)})), RT_TRY(f32_scalar(rt::hbm(), 10.0f * r))};
  });
}

// loss = sum(x) * k = 9(r + 1); grads.w = x + y = [11r + 1, 12r + 2]; grads.b = (y, k).
Result<Step> step_fn(StrategyReplicaContext& context, const Batch& batch, const Scale& scale) {
  rt::Arena& arena = context.arena();
  const Tensor loss = RT_TRY(rt::mul(arena, RT_TRY(rt::reduce_sum(arena, batch.x)), scale.k));
  return Step{loss, Grads{RT_TRY(add(arena, batch.x, batch.y)), {{batch.y, scale.k}}}};
}

Status check_step(const Step& step, float r, const char* what) {
  RT_RETURN_IF_ERROR(expect_f32(step.loss, {9.0f * (r + 1.0f)}, what));
  RT_RETURN_IF_ERROR(expect_f32(step.grads.w, {11.0f * r + 1.0f, 12.0f * r + 2.0f}, what));
  RT_RETURN_IF_ERROR(expect_f32(step.grads.b[0], {10.0f * r}, what));
  return expect_f32(step.grads.b[1], {3.0f}, what);
}

Status run_with_structures(TPUStrategy& strategy, unsigned n) {
  const PerReplica<Batch> batches = RT_TRY(replica_batches(strategy));
  const Scale scale{RT_TRY(f32_scalar(rt::hbm(), 3.0f))};
  const PerReplica<Step> out = RT_TRY(strategy.run(step_fn, batches, scale));
  for (unsigned r = 0; r < n; ++r) RT_RETURN_IF_ERROR(check_step(out.local(r), static_cast<float>(r), "replica r's Step"));
  const DistributedValue& losses = out.field(&Step::loss).value();
  RT_RETURN_IF_ERROR(expect_regrouped(losses, n, "the loss field"));
  for (unsigned r = 0; r < n; ++r)
    RT_RETURN_IF_ERROR(expect_f32(losses.component(r), {9.0f * static_cast<float>(r + 1)}, "loss of replica r"));
  const PerReplica<Grads> grads = out.field(&Step::grads);
  RT_RETURN_IF_ERROR(expect_f32(grads.local(n - 1).b[0], {10.0f * static_cast<float>(n - 1)}, "grads.b[0] of the last replica"));

  // TF's reduce of a structure: leaf by leaf.
  const float rs = sum_of_r(n), fn = static_cast<float>(n);
  const Step sum = RT_TRY(strategy.reduce(ReduceOp::kSum, out));
  RT_RETURN_IF_ERROR(expect_f32(sum.loss, {9.0f * (rs + fn)}, "SUM of loss: 9 * sum(r + 1)"));
  RT_RETURN_IF_ERROR(expect_f32(sum.grads.w, {11.0f * rs + fn, 12.0f * rs + 2.0f * fn}, "SUM of grads.w"));
  RT_RETURN_IF_ERROR(expect_f32(sum.grads.b[0], {10.0f * rs}, "SUM of grads.b[0]"));
  RT_RETURN_IF_ERROR(expect_f32(sum.grads.b[1], {3.0f * fn}, "SUM of grads.b[1]"));
  const Step mean = RT_TRY(strategy.reduce(ReduceOp::kMean, out));
  RT_RETURN_IF_ERROR(expect_f32(mean.grads.b[1], {3.0f}, "MEAN of grads.b[1]"));
  return Status::ok();
}

// Every replica's batch summed in the replicas: x -> [sum(r + 1), sum(2(r + 1))], y -> 10 sum(r).
Status all_reduce_of_a_structure(TPUStrategy& strategy, unsigned n) {
  const PerReplica<Batch> batches = RT_TRY(replica_batches(strategy));
  const PerReplica<Batch> sums = RT_TRY(strategy.run(
      [](StrategyReplicaContext& context, const Batch& batch) { return context.all_reduce(ReduceOp::kSum, batch); },
      batches));
  const float rs = sum_of_r(n), fn = static_cast<float>(n);
  for (unsigned r = 0; r < n; ++r) {
    const Batch sum = sums.local(r);
    RT_RETURN_IF_ERROR(expect_f32(sum.x, {rs + fn, 2.0f * (rs + fn)}, "all_reduce SUM of x"));
    RT_RETURN_IF_ERROR(expect_f32(sum.y, {10.0f * rs}, "all_reduce SUM of y"));
  }
  return Status::ok();
}

// A structure of 40 scalars, leaf i of replica r = r + i: all_reduce SUM gives sum(r) + N i in
// two groups (32 + 8); the 40 leaves also travel as run()'s argument and result.
Status a_model_sized_structure(TPUStrategy& strategy, unsigned n) {
  const PerReplica<Wide> values = RT_TRY(strategy.experimental_distribute_values_from_function(
      [](const ValueContext& context) -> Result<Wide> {
        Wide wide;
        for (size_t i = 0; i < kWide; ++i)
          wide[i] = RT_TRY(f32_scalar(rt::hbm(), static_cast<float>(context.replica_id_in_sync_group + i)));
        return wide;
      }));
  const rt::tpu::RunResult sums = RT_TRY(strategy.run(
      [](StrategyReplicaContext& context, const Wide& wide) { return context.all_reduce(ReduceOp::kSum, wide); },
      values));
  if (sums.size() != kWide) return rt::internal_error("run returned {} values, expected {}", sums.size(), kWide);
  for (size_t i = 0; i < kWide; ++i)
    for (unsigned r = 0; r < n; ++r)
      RT_RETURN_IF_ERROR(expect_f32(sums[static_cast<unsigned>(i)].component(r),
                                    {sum_of_r(n) + static_cast<float>(n * i)}, "leaf i: sum(r) + N i"));
  return Status::ok();
}

// A structure argument where the function takes a tensor: the arguments' tensors (3) are not the
// function's (1): replicate's arity text (TF's, counting the flattened inputs as TF's placeholders).
Status structure_that_does_not_fit(TPUStrategy& strategy) {
  const Batch batch{RT_TRY(f32_scalar(rt::hbm(), 1.0f)), RT_TRY(f32_scalar(rt::hbm(), 2.0f))};
  const Scale scale{RT_TRY(f32_scalar(rt::hbm(), 3.0f))};
  auto one_tensor = [](const Tensor& x) { return x; };
  return expect_error(strategy.run(one_tensor, batch, scale).status(), rt::StatusCode::kInvalidArgument,
                      "Supplied computation cannot be called with the specified inputs. You specified 3 inputs: "
                      "['Placeholder:0', 'Placeholder_1:0', 'Placeholder_2:0'], but the computation needs exactly 1 "
                      "argument",
                      "a Batch and a Scale for one tensor");
}

}  // namespace

Status run_structure_cases(unsigned cores) {
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board());
  RT_RETURN_IF_ERROR(run_with_structures(strategy, cores));
  RT_RETURN_IF_ERROR(all_reduce_of_a_structure(strategy, cores));
  RT_RETURN_IF_ERROR(a_model_sized_structure(strategy, cores));
  return structure_that_does_not_fit(strategy);
}

}  // namespace strategy_test
