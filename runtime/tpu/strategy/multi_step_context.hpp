// MultiStepContext: TF's input_lib.MultiStepContext for TPUStrategy's run_steps_on_dataset, pure
// (no HAL). Inside the step function each replica records named outputs with
// set_last_step_output(name, value[, reduce_op]) (strategy_steps.hpp); each replica keeps them in a
// StepOutputTable, and after the loop the host's MultiStepContext holds the final step's values:
//   - recorded without a reduce op: a PerReplica of every replica's value (plain with one replica);
//   - recorded with SUM/MEAN: reduced across replicas inside the step, every replica holds the same
//     value, and TF keeps the first replica's (output[0]): a plain value.
// Replicas must record the same names in the same order (SPMD), else an error naming the replica.
// Non-tensor outputs (TF's non_tensor_outputs, non_tensor_output.hpp): set here in cross-replica
// context, the value is stored as given (a list of one); set by a step (StepContext, replica context)
// it is TF's merge_call storing every replica's value, in replica order. Each run_steps_on_dataset
// starts with none (TF makes a new context per call).
#pragma once
#include "distributed_value.hpp"
#include "non_tensor_output.hpp"
#include "runtime/collectives/reduce.hpp"

namespace rt::tpu {

inline constexpr unsigned kMaxLastStepOutputs = kMaxReplicaOutputs;

struct LastStepOutputSpec {
  StringView name;
  bool reduced = false;
  ReduceOp reduce_op = ReduceOp::kSum;
};

// One replica's named outputs of the current step, in first-recorded order.
class StepOutputTable {
 public:
  // Records (or replaces, for a name seen before in this step) an output.
  Status record(const LastStepOutputSpec& spec, const Tensor& value);
  void clear() { count_ = 0; }
  unsigned size() const { return count_; }
  const LastStepOutputSpec& spec(unsigned index) const { return specs_[index]; }
  const Tensor& value(unsigned index) const { return values_[index]; }

 private:
  LastStepOutputSpec specs_[kMaxLastStepOutputs];
  Tensor values_[kMaxLastStepOutputs];
  unsigned count_ = 0;
};

class MultiStepContext {
 public:
  // TF's last_step_outputs[name]; NOT_FOUND for a name no step recorded.
  Result<DistributedValue> last_step_output(StringView name) const;
  unsigned num_last_step_outputs() const { return count_; }
  const LastStepOutputSpec& spec(unsigned index) const { return specs_[index]; }
  // Steps the last run_steps_on_dataset ran.
  int64_t steps_run() const { return steps_run_; }

  // TF's set_non_tensor_output in cross-replica context: `value` as given under `name`.
  Status set_non_tensor_output(StringView name, const NonTensor& value) {
    return non_tensor_outputs_.set(name, Span<const NonTensor>(&value, 1));
  }
  // TF's non_tensor_outputs[name]: the values stored (one per replica when a step set it).
  Result<Span<const NonTensor>> non_tensor_output(StringView name) const { return non_tensor_outputs_.get(name); }
  const NonTensorOutputs& non_tensor_outputs() const { return non_tensor_outputs_; }
  // For the strategy: a step's set_non_tensor_output (every replica's value), and a new call's start.
  Status set_replicas_non_tensor_output(StringView name, Span<const NonTensor> values) {
    return non_tensor_outputs_.set(name, values);
  }
  void clear_non_tensor_outputs() { non_tensor_outputs_.clear(); }

  // For the strategy: the final step's tables of every replica (names and order must agree).
  Status assemble(Span<const StepOutputTable* const> tables, int64_t steps_run);

 private:
  LastStepOutputSpec specs_[kMaxLastStepOutputs];
  DistributedValue values_[kMaxLastStepOutputs];
  unsigned count_ = 0;
  int64_t steps_run_ = 0;
  NonTensorOutputs non_tensor_outputs_;
};

}  // namespace rt::tpu
