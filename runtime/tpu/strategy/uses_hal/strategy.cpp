// TPUStrategy: construction, run, reduce and the input functions (variables: strategy_variables.cpp,
// device loops: strategy_steps.cpp, launches: strategy_launch.cpp).
#include "runtime/tpu/strategy/strategy.hpp"

#include "hal/core.hpp"
#include "runtime/tpu/mesh/pod_membership.hpp"
#include "runtime/tpu/replicate/uses_hal/pod_program.hpp"
#include "runtime/tensor/constant.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/strategy/strategy_num_cores.hpp"

namespace rt::tpu {
namespace {

// TF's regroup of every replica's output k into values[k] (as many as replica 0's outputs): a plain
// value for one replica, else a PerReplica filled in place (no table of the pod's size in the frame).
Status regroup_outputs(const ReplicateResult& result, unsigned replicas, Span<DistributedValue> values) {
  for (unsigned r = 1; r < replicas; ++r)
    if (result[r].size() != values.size())
      return invalid_argument("replica {} returned {} values, replica 0 returned {}", r, result[r].size(),
                              values.size());
  for (unsigned k = 0; k < values.size(); ++k) {
    if (replicas == 1) {
      values[k] = DistributedValue::plain(result[0][k]);
      continue;
    }
    values[k] = DistributedValue::per_replica_of(replicas);
    for (unsigned r = 0; r < replicas; ++r) values[k].set_component(r, result[r][k]);
  }
  return Status::ok();
}

}  // namespace

Status require_cross_replica_context() {
  if (current_strategy_replica_context() == nullptr) return Status::ok();
  return Status::error(StatusCode::kFailedPrecondition,
                       "Method requires being in cross-replica context, use get_replica_context().merge_call()");
}

Result<TPUStrategy> TPUStrategy::create(const TPUClusterResolver& resolver, const StrategyOptions& options) {
  if (options.steps_per_run == 0) return invalid_argument("steps_per_run must be positive, got 0");
  TPUStrategy strategy;
  strategy.resolver_ = resolver;
  strategy.options_ = options;
  strategy.options_.device_assignment =  // num_cores: the first num_cores cores (strategy_num_cores.hpp)
      RT_TRY(num_cores_assignment(resolver, options.num_cores, options.device_assignment));
  strategy.num_replicas_ = strategy_num_replicas(resolver, strategy.options_.device_assignment);
  return strategy;
}

Result<TPUStrategy> TPUStrategy::for_board(const StrategyOptions& options) {
  const PodMembership& pod = pod_membership();
  Result<TPUClusterResolver> resolver = TPUClusterResolver::for_pod(hal::core_count(), pod.task, pod.num_tasks);
  if (!resolver) return resolver.status();
  return create(*resolver, options);
}

Status TPUStrategy::run(const StrategyFunction& fn, Span<const DistributedValue> args, RunOutputs& outputs) {
  outputs.count = 0;
  const ValueRefList refs = RT_TRY(value_refs(args, "a strategy function takes"));
  const ReplicateResult* result = nullptr;
  RT_RETURN_IF_ERROR(launch(fn, refs.span(), &result));
  const unsigned count = (*result)[0].size();
  RT_RETURN_IF_ERROR(regroup_outputs(*result, num_replicas_, Span<DistributedValue>(outputs.values, count)));
  outputs.count = count;
  return Status::ok();
}

Result<RunResult> TPUStrategy::run(const StrategyFunction& fn, Span<const DistributedValue> args) {
  const ValueRefList refs = RT_TRY(value_refs(args, "a strategy function takes"));
  return run(fn, refs.span());
}

Result<RunResult> TPUStrategy::run(const StrategyFunction& fn, Span<const ValueRef> args) {
  const ReplicateResult* result = nullptr;
  RT_RETURN_IF_ERROR(launch(fn, args, &result));
  const unsigned count = (*result)[0].size();
  DistributedValue* values = RT_TRY(allocate_distributed_values(count));
  RT_RETURN_IF_ERROR(regroup_outputs(*result, num_replicas_, Span<DistributedValue>(values, count)));
  return RunResult(values, count);
}

Result<Tensor> TPUStrategy::reduce(ReduceOp op, const DistributedValue& value, ReduceAxis axis) const {
  RT_RETURN_IF_ERROR(require_cross_replica_context());
  return cross_replica_reduce(op, value, axis, num_replicas_, hbm());
}

Result<Tensor> TPUStrategy::gather(const DistributedValue& value, int64_t axis) const {
  if (current_strategy_replica_context() != nullptr)
    return invalid_argument("tf.distribute.Strategy.gather method requires cross-replica context, use "
                            "get_replica_context().all_gather() instead");
  return gather_replicas(value, axis, hbm());
}

Result<DistributedValue> TPUStrategy::worker_device_index() const {
  RT_RETURN_IF_ERROR(require_cross_replica_context());
  Tensor indices[kMaxReplicas];
  for (unsigned replica = 0; replica < num_replicas_; ++replica)
    indices[replica] = RT_TRY(scalar(hbm(), static_cast<int32_t>(replica)));
  if (num_replicas_ == 1) return DistributedValue::plain(indices[0]);
  return DistributedValue::per_replica(Span<const Tensor>(indices, num_replicas_));
}

Result<Tensor> TPUStrategy::reduce(StringView op, const DistributedValue& value, ReduceAxis axis) const {
  Result<ReduceOp> parsed = reduce_op_from_name(op);
  if (!parsed) return parsed.status();
  return reduce(*parsed, value, axis);
}

Result<DistributedDataset> TPUStrategy::experimental_distribute_dataset(const Dataset& dataset) const {
  return DistributedDataset::split_batches(dataset, num_replicas_);
}

Result<DistributedDataset> TPUStrategy::distribute_datasets_from_function(const DatasetFunction& fn) const {
  const PodMembership& pod = pod_membership();
  if (!pod.in_pod()) {
    const InputContext context{1, 0, num_replicas_};  // a board is one host: one input pipeline
    const Dataset pipeline = RT_TRY(fn(context));
    return DistributedDataset::per_replica_elements(pipeline, num_replicas_);
  }
  // A pod: each board is a host with its own pipeline for its own replicas; the boards agree on the
  // steps every one of them has.
  const InputContext context{pod.num_tasks, pod.task, num_replicas_};
  const Dataset pipeline = RT_TRY(fn(context));
  DistributedDataset distributed =
      RT_TRY(DistributedDataset::per_host_elements(pipeline, num_replicas_, pod.num_tasks, pod.task));
  distributed.agree_on_steps(RT_TRY(smallest_across_boards(distributed.host_steps())));
  return distributed;
}

}  // namespace rt::tpu
