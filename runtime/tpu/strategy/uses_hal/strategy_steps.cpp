// The device-side step loop of run_steps_on_dataset, its last-step outputs and non-tensor outputs.
#include "runtime/tpu/strategy/strategy_steps.hpp"

#include "runtime/tpu/mesh/pod_membership.hpp"
#include "runtime/tpu/strategy/step_output_specs.hpp"

namespace rt::tpu {
namespace {

struct StepLoop {
  StepFunction fn;
  DistributedDataset dataset;
  int64_t first_step = 0;
  unsigned steps = 0;
  MultiStepContext* context = nullptr;  // the host's: non-tensor outputs go there
  StepOutputTable tables[kMaxReplicas];  // each replica's outputs of its latest step (logical core 0's)
  StepOutputTable other_cores[hal::kMaxCores];  // by core: those of the other logical cores (dropped)
};

StepLoop loop;  // read by the replicas of run_steps_on_dataset's launch

// In a pod of boards the last step's outputs reach every board as the launch's outputs (replicate
// gathers every replica's outputs on every board, pod_outputs.hpp): each replica gives its table's
// values in its table's order, then their names and reduce ops (step_output_specs.hpp), so that every
// board names every replica's values alike and sees the same disagreement, if any (a replica's logical
// cores other than 0 give theirs, which replicate drops).
Status add_last_step_outputs(StrategyReplicaContext& context, const StepLoop& steps, ReplicaOutputs& outputs) {
  const ReplicaContext& replica = context.replica();
  const StepOutputTable& table =
      replica.logical_core() == 0 ? steps.tables[context.replica_id_in_sync_group()] : steps.other_cores[replica.core()];
  if (table.size() >= kMaxReplicaOutputs)
    return invalid_argument("set_last_step_output: in a pod of boards at most {} named outputs (one more output carries "
                            "their names), replica {} set {}", kMaxReplicaOutputs - 1, context.replica_id_in_sync_group(),
                            table.size());
  for (unsigned k = 0; k < table.size(); ++k) RT_RETURN_IF_ERROR(outputs.add(table.value(k)));
  return outputs.add(RT_TRY(encode_step_output_specs(table, context.arena())));
}

// After the launch, in a pod: every replica's table, wherever it ran, from the launch's outputs under
// the names that replica gave; MultiStepContext::assemble then checks they agree, as on one board (the
// same decision on every board: they all see the same outputs).
Status tables_from_launch_outputs(const ReplicateResult& result, unsigned replicas) {
  LastStepOutputSpec specs[kMaxLastStepOutputs];
  for (unsigned r = 0; r < replicas; ++r) {
    const ReplicaOutputs& outputs = result.replicas[r];
    if (outputs.size() == 0) return internal_error("run_steps_on_dataset: replica {} gave no last step outputs", r);
    const unsigned count = outputs.size() - 1;
    RT_RETURN_IF_ERROR(decode_step_output_specs(outputs[count], count, r, specs));
    loop.tables[r].clear();
    for (unsigned k = 0; k < count; ++k) RT_RETURN_IF_ERROR(loop.tables[r].record(specs[k], outputs[k]));
  }
  return Status::ok();
}

Status run_one_step(StrategyReplicaContext& context, StepLoop& steps, unsigned step) {
  const unsigned replica = context.replica_id_in_sync_group();
  Tensor inputs[kMaxElementTensors];
  const unsigned num_inputs = steps.dataset.element_tensors();
  RT_RETURN_IF_ERROR(steps.dataset.element(steps.first_step + step, replica, Span<Tensor>(inputs, num_inputs)));
  StepOutputTable& table = context.replica().logical_core() == 0 ? steps.tables[replica]
                                                                   : steps.other_cores[context.replica().core()];
  table.clear();
  context.merge().begin_step(step);
  StepContext step_context(context, table, step, steps.context);
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

// A non-tensor value as three int64s (kind, payload, text size): merge_call gathers it as a tensor.
constexpr int64_t kNonTensorWords = 3;

void encode(const NonTensor& value, int64_t* words) {
  words[0] = static_cast<int64_t>(value.kind());
  words[1] = value.as_int();
  words[2] = 0;
  if (value.kind() == NonTensor::Kind::kFloat) {
    const double number = value.as_float();
    __builtin_memcpy(&words[1], &number, sizeof(number));
  } else if (value.kind() == NonTensor::Kind::kText) {
    words[1] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(value.as_text().data()));
    words[2] = static_cast<int64_t>(value.as_text().size());
  }
}

NonTensor decode(const int64_t* words) {
  switch (static_cast<NonTensor::Kind>(words[0])) {
    case NonTensor::Kind::kInt: break;
    case NonTensor::Kind::kFloat: {
      double number;
      __builtin_memcpy(&number, &words[1], sizeof(number));
      return NonTensor(number);
    }
    case NonTensor::Kind::kText:
      return NonTensor(StringView(reinterpret_cast<const char*>(static_cast<uintptr_t>(words[1])),
                                  static_cast<size_t>(words[2])));
  }
  return NonTensor(words[1]);
}

// merge_fn of set_non_tensor_output: every replica's value, in replica order, into the host's context.
Status store_non_tensor_output(MultiStepContext& host, StringView name, const DistributedValue& values) {
  const Span<const Tensor> components = values.local_results();
  NonTensor decoded[kMaxReplicas];
  for (size_t r = 0; r < components.size(); ++r) decoded[r] = decode(reinterpret_cast<const int64_t*>(components[r].data));
  return host.set_replicas_non_tensor_output(name, Span<const NonTensor>(decoded, components.size()));
}

}  // namespace

Status StepContext::set_non_tensor_output(StringView name, const NonTensor& value) {
  if (host_context_ == nullptr)
    return internal_error("set_non_tensor_output('{}'): this step has no MultiStepContext", name);
  if (value.kind() == NonTensor::Kind::kText && pod_membership().in_pod())
    return invalid_argument("set_non_tensor_output('{}'): a text cannot cross the boards of a pod (only integers "
                            "and floats can)", name);
  const int64_t dims[] = {kNonTensorWords};
  const Tensor encoded =
      RT_TRY(replica_.arena().allocate_tensor(DType::kI64, *Shape::make(dims), "a non-tensor output"));
  encode(value, reinterpret_cast<int64_t*>(encoded.data));
  MultiStepContext* host = host_context_;
  const MergeFn merge_fn = [host, name](TPUStrategy&, Span<const DistributedValue> args, MergeResult&) {
    return store_non_tensor_output(*host, name, args[0]);
  };
  MergeOutputs none;
  return replica_.merge_call(merge_fn, Span<const Tensor>(&encoded, 1), none);
}

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
                                         MultiStepContext& context, unsigned iterations,
                                         Span<const NamedTensor> initial_loop_values) {
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
  RT_RETURN_IF_ERROR(require_idle_replicas());  // before `loop`, which a straggling replica may read
  loop.fn = fn;
  loop.dataset = iterator.dataset();
  loop.first_step = iterator.position();
  loop.steps = steps;
  loop.context = &context;
  context.clear_non_tensor_outputs();  // TF: a new MultiStepContext per call
  const StrategyFunction body{fn.name,
                              [](StrategyReplicaContext& replica, ReplicaArgs, ReplicaOutputs& outputs) {
                                RT_RETURN_IF_ERROR(step_loop(replica, loop));
                                return pod_membership().in_pod() ? add_last_step_outputs(replica, loop, outputs)
                                                                 : Status::ok();
                              },
                              Signature{0}};
  const ReplicateResult* result = nullptr;
  for (StepOutputTable& table : loop.tables) table.clear();  // another board's replicas leave theirs empty
  RT_RETURN_IF_ERROR(launch(body, Span<const ValueRef>(), &result));
  if (pod_membership().in_pod()) RT_RETURN_IF_ERROR(tables_from_launch_outputs(*result, num_replicas_));
  RT_RETURN_IF_ERROR(check_initial_loop_values(initial_loop_values, loop.tables[0]));
  const StepOutputTable* tables[kMaxReplicas];
  for (unsigned r = 0; r < num_replicas_; ++r) tables[r] = &loop.tables[r];
  RT_RETURN_IF_ERROR(context.assemble(Span<const StepOutputTable* const>(tables, num_replicas_), steps));
  return iterator.advance(steps);
}

}  // namespace rt::tpu
