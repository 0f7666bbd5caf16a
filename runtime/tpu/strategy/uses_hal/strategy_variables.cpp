// TPUStrategy's mirrored values: broadcast (replica 0's value wins), reduce_to mirrored destinations,
// mirrored variables, update and read_var,
// each one launch in which every replica works on its own copy in its own arena.
#include "runtime/tpu/spmd/logical_devices_context.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/strategy/strategy.hpp"

namespace rt::tpu {
namespace {

// Each replica copies its argument 0 into its arena and returns the copy.
Status copy_to_replica(StrategyReplicaContext& context, ReplicaArgs args, ReplicaOutputs& outputs) {
  Result<Tensor> copy_of_value = context.arena().allocate_tensor(args[0].dtype, args[0].shape, "a mirrored copy");
  if (!copy_of_value) return copy_of_value.status();
  RT_RETURN_IF_ERROR(copy(args[0], *copy_of_value));
  return outputs.add(*copy_of_value);
}

struct UpdateCall {
  UpdateFunction fn;  // its own copy of a stored callable: replicas read it during the launch
  const MirroredVariable* variable;
};

UpdateCall update_call;  // read by the replicas of update's launch

// Logical core 0 of each replica updates the replica's copy; with model parallelism the replica's
// other logical cores run fn too (SPMD: its collectives need every core) on a private copy in their
// arena, taken before logical core 0 starts changing the replica's.
Status update_copy(StrategyReplicaContext& context, ReplicaArgs args, const UpdateCall& call) {
  const Tensor& copy_of_replica = call.variable->copy(context.replica_id_in_sync_group());
  if (context.replica().num_logical_cores() == 1) return call.fn(context, copy_of_replica, args);
  Tensor variable = copy_of_replica;
  if (context.replica().logical_core() != 0) {
    Result<Tensor> private_copy =
        context.arena().allocate_tensor(copy_of_replica.dtype, copy_of_replica.shape, "a logical core's variable copy");
    if (!private_copy) return private_copy.status();
    RT_RETURN_IF_ERROR(copy(copy_of_replica, *private_copy));
    variable = *private_copy;
  }
  RT_RETURN_IF_ERROR(logical_devices().barrier());
  return call.fn(context, variable, args);
}

}  // namespace

Result<DistributedValue> TPUStrategy::broadcast(const DistributedValue& value) {
  const DistributedValue source = DistributedValue::plain(value.component(0));
  const StrategyFunction body{"broadcast", copy_to_replica, Signature{1}};
  const ReplicateResult* result = nullptr;
  RT_RETURN_IF_ERROR(launch(body, Span<const DistributedValue>(&source, 1), &result));
  Tensor copies[kMaxReplicas];
  for (unsigned r = 0; r < num_replicas_; ++r) copies[r] = (*result)[r][0];
  return DistributedValue::mirrored(Span<const Tensor>(copies, num_replicas_));
}

Status TPUStrategy::create_mirrored_variable(const Tensor& initial_value, MirroredVariable& variable) {
  Result<DistributedValue> copies = broadcast(DistributedValue::plain(initial_value));
  if (!copies) return copies.status();
  variable.copies = *copies;
  return Status::ok();
}

Status TPUStrategy::update(MirroredVariable& variable, const UpdateFunction& fn, Span<const DistributedValue> args) {
  if (args.size() > kMaxReplicaInputs)
    return invalid_argument("update: at most {} arguments, got {}", kMaxReplicaInputs, args.size());
  ValueRef refs[kMaxReplicaInputs];
  for (unsigned k = 0; k < args.size(); ++k) refs[k] = args[k];
  return update(variable, fn, Span<const ValueRef>(refs, args.size()));
}

Status TPUStrategy::update(MirroredVariable& variable, const UpdateFunction& fn, Span<const ValueRef> args) {
  if (variable.copies.kind() != ValueKind::kMirrored || variable.copies.num_components() != num_replicas_)
    return invalid_argument("update: the variable has {} copies of kind {}, expected a Mirrored value with {} copies",
                            variable.copies.num_components(), value_kind_name(variable.copies.kind()), num_replicas_);
  update_call = UpdateCall{fn, &variable};
  const StrategyFunction body{"update",
                              [](StrategyReplicaContext& context, ReplicaArgs update_args, ReplicaOutputs&) {
                                return update_copy(context, update_args, update_call);
                              },
                              Signature{0, 0, true}};
  const ReplicateResult* result = nullptr;
  return launch(body, args, &result);
}

Result<DistributedValue> TPUStrategy::reduce_to(ReduceOp op, const DistributedValue& value,
                                                const Destinations& destinations) {
  return place(DistributedValue::plain(RT_TRY(reduce(op, value))), destinations);
}

Result<DistributedValue> TPUStrategy::place(const DistributedValue& value, const Destinations& destinations) {
  return destinations.replicas() ? broadcast(value) : value;
}

Result<DistributedValue> TPUStrategy::reduce_to(VariableAggregation aggregation, const DistributedValue& value,
                                                const Destinations& destinations) {
  switch (aggregation) {
    case VariableAggregation::kSum: return reduce_to(ReduceOp::kSum, value, destinations);
    case VariableAggregation::kMean: return reduce_to(ReduceOp::kMean, value, destinations);
    case VariableAggregation::kOnlyFirstReplica: {
      RT_RETURN_IF_ERROR(require_cross_replica_context());
      return place(DistributedValue::plain(value.component(0)), destinations);
    }
    case VariableAggregation::kNone: break;
  }
  return invalid_argument("Could not convert from `tf.VariableAggregation` VariableAggregation.NONE to"
                          "`tf.distribute.ReduceOp` type");
}

Status TPUStrategy::batch_reduce_to(ReduceOp op, Span<const ValueDestination> pairs, Span<DistributedValue> results) {
  if (results.size() != pairs.size())
    return invalid_argument("batch_reduce_to: {} results for {} (value, destinations) pairs", results.size(), pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    Result<DistributedValue> reduced = reduce_to(op, pairs[i].value, pairs[i].destinations);
    if (!reduced) {
      for (DistributedValue& result : results) result = DistributedValue();  // nothing half written
      return reduced.status();
    }
    results[i] = *reduced;
  }
  return Status::ok();
}

Result<Tensor> TPUStrategy::read_var(const MirroredVariable& variable) const {
  RT_RETURN_IF_ERROR(require_cross_replica_context());
  const Tensor& primary = variable.copy(0);
  const Tensor value = RT_TRY(hbm().allocate_tensor(primary.dtype, primary.shape, "read_var"));
  RT_RETURN_IF_ERROR(copy(primary, value));
  return value;
}

}  // namespace rt::tpu
