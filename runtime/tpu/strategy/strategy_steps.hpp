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
// set_non_tensor_output(name, value) is TF's MultiStepContext.set_non_tensor_output in replica
// context: a merge_call (so every replica makes it, and it counts as one) whose merge_fn stores every
// replica's value, in replica order, in the host's MultiStepContext (TF's unwrap of the merged value).
// initial_loop_values (initial_loop_values.hpp) are checked against the last step's outputs after the
// launch; a mismatch is TF's TypeError, and the last step outputs and the iterator are left as they were.
// Memory a step allocates in the replica's arena is given back when the step ends, except for the
// last step and for steps that made a merge_call (replica 0's merge results may still be read).
#pragma once
#include "strategy.hpp"

namespace rt::tpu {

class StepContext {
 public:
  StepContext(StrategyReplicaContext& replica, StepOutputTable& outputs, int64_t step,
              MultiStepContext* host_context = nullptr)
      : replica_(replica), outputs_(outputs), step_(step), host_context_(host_context) {}

  StrategyReplicaContext& replica() const { return replica_; }
  // 0-based step within this run_steps_on_dataset call.
  int64_t step() const { return step_; }

  // The replica's own value (last_step_outputs[name] is then a PerReplica).
  Status set_last_step_output(StringView name, const Tensor& value);
  // The value all_reduced with `op` across the replicas now (last_step_outputs[name] is plain).
  Status set_last_step_output(StringView name, const Tensor& value, ReduceOp op);
  Status set_last_step_output(StringView name, const Tensor& value, StringView op);
  // non_tensor_outputs[name] becomes every replica's value, in replica order (a merge_call). A text
  // must outlive the context (a literal); in a pod of boards only integers and floats.
  Status set_non_tensor_output(StringView name, const NonTensor& value);

 private:
  StrategyReplicaContext& replica_;
  StepOutputTable& outputs_;
  int64_t step_;
  MultiStepContext* host_context_;
};

}  // namespace rt::tpu
