// run_steps_on_dataset: the contrib TPUStrategy's steps_per_run loop
// (extended.experimental_run_steps_on_iterator(fn, iterator, iterations)): ONE replicate launch in
// which every replica runs `iterations` steps back to back, step s taking the replica's element of
// the iterator's step (position + s), before control returns to the program. Inside a step the
// function gets a StepContext: the replica's StrategyReplicaContext (all_reduce, merge_call: counted
// per step) and set_last_step_output(name, value[, reduce_op]) (multi_step_context.hpp): with a
// reduce op the value is all_reduced across the replicas inside the step (TF reduces it through
// merge_call, which on TPU is a cross_replica_sum). The host's MultiStepContext gets the final
// step's outputs; the iterator moves past the steps run. Asking for more steps than the iterator has
// left is "End of sequence" before anything runs.
// Memory a step allocates in the replica's arena is given back when the step ends, except for the
// last step and for steps that made a merge_call (replica 0's merge results may still be read).
#pragma once
#include "strategy.hpp"

namespace rt::tpu {

class StepContext {
 public:
  StepContext(StrategyReplicaContext& replica, StepOutputTable& outputs, int64_t step)
      : replica_(replica), outputs_(outputs), step_(step) {}

  StrategyReplicaContext& replica() const { return replica_; }
  // 0-based step within this run_steps_on_dataset call.
  int64_t step() const { return step_; }

  // The replica's own value (last_step_outputs[name] is then a PerReplica).
  Status set_last_step_output(StringView name, const Tensor& value);
  // The value all_reduced with `op` across the replicas now (last_step_outputs[name] is plain).
  Status set_last_step_output(StringView name, const Tensor& value, ReduceOp op);
  Status set_last_step_output(StringView name, const Tensor& value, StringView op);

 private:
  StrategyReplicaContext& replica_;
  StepOutputTable& outputs_;
  int64_t step_;
};

}  // namespace rt::tpu
