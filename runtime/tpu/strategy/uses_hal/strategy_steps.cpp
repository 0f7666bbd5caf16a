// The device-side step loop of run_steps_on_dataset and its last-step outputs.
#include "runtime/tpu/strategy/strategy_steps.hpp"

namespace rt::tpu {
namespace {

struct StepLoop {
  StepFunction fn;
  DistributedDataset dataset;
  int64_t first_step = 0;
  unsigned steps = 0;
  StepOutputTable tables[kMaxReplicas];  // each replica's outputs of its latest step (logical core 0's)
  StepOutputTable other_cores[hal::kMaxCores];  // by core: those of the other logical cores (dropped)
};

StepLoop loop;  // read by the replicas of run_steps_on_dataset's launch

Status run_one_step(StrategyReplicaContext& context, StepLoop& steps, unsigned step) {
  const unsigned replica = context.replica_id_in_sync_group();
  Tensor inputs[kMaxElementTensors];
  const unsigned num_inputs = steps.dataset.element_tensors();
  RT_RETURN_IF_ERROR(steps.dataset.element(steps.first_step + step, replica, Span<Tensor>(inputs, num_inputs)));
  StepOutputTable& table = context.replica().logical_core() == 0 ? steps.tables[replica]
                                                                   : steps.other_cores[context.replica().core()];
  table.clear();
  context.merge().begin_step(step);
  StepContext step_context(context, table, step);
  return steps.fn.fn(step_context, ReplicaArgs(inputs, num_inputs));
}

Status step_loop(StrategyReplicaContext& context, StepLoop& steps) {
  for (unsigned step = 0; step < steps.steps; ++step) {
    const size_t mark = context.arena().used();
    RT_RETURN_IF_ERROR(run_one_step(context, steps, step));
    const bool last = step + 1 == steps.steps;
    if (!last && context.merge().merges_in_step() == 0) context.arena().release_to(mark);
  }
  return Status::ok();
}

}  // namespace

Status StepContext::set_last_step_output(StringView name, const Tensor& value) {
  return outputs_.record(LastStepOutputSpec{name, false, ReduceOp::kSum}, value);
}

Status StepContext::set_last_step_output(StringView name, const Tensor& value, ReduceOp op) {
  Result<Tensor> reduced = replica_.all_reduce(op, value);
  if (!reduced) return reduced.status();
  return outputs_.record(LastStepOutputSpec{name, true, op}, *reduced);
}

Status StepContext::set_last_step_output(StringView name, const Tensor& value, StringView op) {
  Result<ReduceOp> parsed = reduce_op_from_name(op);
  if (!parsed) return parsed.status();
  return set_last_step_output(name, value, *parsed);
}

Status TPUStrategy::run_steps_on_dataset(const StepFunction& fn, DistributedIterator& iterator,
                                         MultiStepContext& context, unsigned iterations) {
  const unsigned steps = iterations != 0 ? iterations : options_.steps_per_run;
  RT_RETURN_IF_ERROR(require_cross_replica_context());
  if (iterator.dataset().num_replicas() != num_replicas_)
    return invalid_argument("run_steps_on_dataset: the dataset is distributed over {} replicas, the strategy has {}",
                            iterator.dataset().num_replicas(), num_replicas_);
  if (iterator.dataset().element_tensors() != fn.num_inputs)
    return invalid_argument("run_steps_on_dataset: the dataset's elements hold {} tensors, the step function '{}' "
                            "takes {}",
                            iterator.dataset().element_tensors(), fn.name, fn.num_inputs);
  if (iterator.position() + steps > iterator.dataset().num_steps()) return end_of_sequence();
  loop.fn = fn;
  loop.dataset = iterator.dataset();
  loop.first_step = iterator.position();
  loop.steps = steps;
  const StrategyFunction body{fn.name,
                              [](StrategyReplicaContext& replica, ReplicaArgs, ReplicaOutputs&) { return step_loop(replica, loop); },
                              Signature{0}};
  const ReplicateResult* result = nullptr;
  RT_RETURN_IF_ERROR(launch(body, Span<const ValueRef>(), &result));
  const StepOutputTable* tables[kMaxReplicas];
  for (unsigned r = 0; r < num_replicas_; ++r) tables[r] = &loop.tables[r];
  RT_RETURN_IF_ERROR(context.assemble(Span<const StepOutputTable* const>(tables, num_replicas_), steps));
  return iterator.advance(steps);
}

}  // namespace rt::tpu
