// steps_per_run: run_steps_on_dataset runs the step function for several steps in ONE replicate
// launch (the strategy's launch count grows by one per call), merge_call inside steps, and the final
// step's outputs in the MultiStepContext. Global batches of 2N rows [i] (row i = i), 5 of them:
// at step s replica r gets rows 2Ns + 2r and 2Ns + 2r + 1, so its local sum is 4Ns + 4r + 1 and the
// replicas' total is 4N^2 s + 2N(N - 1) + N. The strategy's steps_per_run is 3: steps 0-2, then an
// explicit 2 iterations (steps 3-4), then "End of sequence".
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/strategy/strategy_steps.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::tpu::MergeOutputs;
using rt::tpu::MergeResult;
using rt::tpu::StepContext;

unsigned steps_seen[rt::tpu::kMaxReplicas];  // each replica counts its own steps

Status total_merge(TPUStrategy& strategy, rt::Span<const DistributedValue> args, MergeResult& result) {
  Result<Tensor> sum = strategy.reduce("sum", args[0]);
  if (!sum) return sum.status();
  return result.add(DistributedValue::plain(*sum));
}

Status train_step(StepContext& step, const Tensor& inputs) {
  rt::tpu::StrategyReplicaContext& replica = step.replica();
  ++steps_seen[replica.replica_id_in_sync_group()];
  Result<Tensor> local = sum_rows(replica.arena(), inputs);
  if (!local) return local.status();
  const Tensor merge_args[] = {*local};
  MergeOutputs merged;
  RT_RETURN_IF_ERROR(replica.merge_call(total_merge, merge_args, merged));
  Result<Tensor> step_index = f32_scalar(replica.arena(), static_cast<float>(step.step()));
  if (!step_index) return step_index.status();
  RT_RETURN_IF_ERROR(step.set_last_step_output("local", *local));
  RT_RETURN_IF_ERROR(step.set_last_step_output("total", *local, rt::ReduceOp::kSum));
  RT_RETURN_IF_ERROR(step.set_last_step_output("merged", merged[0]));
  return step.set_last_step_output("step", *step_index, "mean");
}

Status expect_last_step(const rt::tpu::MultiStepContext& context, unsigned n, int64_t global_step, float step_in_call) {
  const float nf = static_cast<float>(n), s = static_cast<float>(global_step);
  const float total = 4 * nf * nf * s + 2 * nf * (nf - 1) + nf;
  Result<DistributedValue> local = context.last_step_output("local");
  Result<DistributedValue> reduced = context.last_step_output("total");
  Result<DistributedValue> merged = context.last_step_output("merged");
  Result<DistributedValue> step = context.last_step_output("step");
  if (!local || !reduced || !merged || !step) return rt::internal_error("a last step output is missing");
  RT_RETURN_IF_ERROR(expect_regrouped(*local, n, "last_step_outputs['local']"));
  if (reduced->is_distributed() || step->is_distributed())
    return rt::internal_error("reduced last step outputs must be plain values");
  for (unsigned r = 0; r < n; ++r) {
    RT_RETURN_IF_ERROR(expect_f32(local->component(r), {4 * nf * s + 4 * static_cast<float>(r) + 1}, "local sum"));
    RT_RETURN_IF_ERROR(expect_f32(merged->component(r), {total}, "merge_call total in the last step"));
  }
  RT_RETURN_IF_ERROR(expect_f32(reduced->component(0), {total}, "last_step_outputs['total']"));
  return expect_f32(step->component(0), {step_in_call}, "last_step_outputs['step'] (MEAN of equal values)");
}

}  // namespace

Status run_steps_cases(unsigned cores) {
  rt::tpu::StrategyOptions options;
  options.steps_per_run = 3;
  Result<TPUStrategy> strategy = TPUStrategy::for_board(options);
  if (!strategy) return strategy.status();
  const int64_t shape[] = {10 * cores, 1};
  Result<Tensor> rows = rt::hbm().allocate_tensor(rt::DType::kF32, *rt::Shape::make(shape), "steps source");
  if (!rows) return rows.status();
  for (unsigned i = 0; i < 10 * cores; ++i) reinterpret_cast<float*>(rows->data)[i] = static_cast<float>(i);
  Result<rt::tpu::Dataset> slices = rt::tpu::Dataset::from_tensor_slices(*rows);
  if (!slices) return slices.status();
  Result<rt::tpu::Dataset> batched = slices->batch(2 * cores);
  if (!batched) return batched.status();
  Result<rt::tpu::DistributedDataset> distributed = strategy->experimental_distribute_dataset(*batched);
  if (!distributed) return distributed.status();
  rt::tpu::DistributedIterator iterator(*distributed);
  static rt::tpu::MultiStepContext context;
  for (unsigned& seen : steps_seen) seen = 0;
  const rt::tpu::StepFunction step = rt::tpu::step_function_of("train_step", train_step);

  const uint64_t launches = strategy->launches();
  RT_RETURN_IF_ERROR(strategy->run_steps_on_dataset(step, iterator, context, rt::tpu::kStepsPerRun));
  if (strategy->launches() != launches + 1 || context.steps_run() != 3 || iterator.position() != 3)
    return rt::internal_error("steps_per_run 3: {} launches, {} steps, iterator at {}; expected 1, 3 and 3",
                              strategy->launches() - launches, context.steps_run(), iterator.position());
  RT_RETURN_IF_ERROR(expect_last_step(context, cores, 2, 2));
  // TF's default: one iteration.
  RT_RETURN_IF_ERROR(strategy->run_steps_on_dataset(step, iterator, context));
  if (strategy->launches() != launches + 2 || context.steps_run() != 1 || iterator.position() != 4)
    return rt::internal_error("the default iterations: {} launches in all, {} steps, iterator at {}; expected 2, 1 and 4",
                              strategy->launches() - launches, context.steps_run(), iterator.position());
  RT_RETURN_IF_ERROR(expect_last_step(context, cores, 3, 0));
  // The same step function as a lambda (stored with the launch, called through its own copy).
  auto step_lambda = [](StepContext& step_context, const Tensor& inputs) { return train_step(step_context, inputs); };
  RT_RETURN_IF_ERROR(strategy->run_steps_on_dataset(step_lambda, iterator, context, 1));
  if (strategy->launches() != launches + 3 || iterator.position() != 5)
    return rt::internal_error("1 iteration: {} launches in all, iterator at {}; expected 3 and 5",
                              strategy->launches() - launches, iterator.position());
  RT_RETURN_IF_ERROR(expect_last_step(context, cores, 4, 0));
  for (unsigned r = 0; r < cores; ++r)
    if (steps_seen[r] != 5) return rt::internal_error("replica {} ran {} steps, expected 5", r, steps_seen[r]);
  RT_RETURN_IF_ERROR(expect_error(strategy->run_steps_on_dataset(step, iterator, context), rt::StatusCode::kOutOfRange,
                                  "End of sequence", "steps past the end of the dataset"));
  if (strategy->launches() != launches + 3) return rt::internal_error("a launch ran past the end of the dataset");
  return Status::ok();
}

}  // namespace strategy_test
