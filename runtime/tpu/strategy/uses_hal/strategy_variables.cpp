// TPUStrategy's mirrored values: broadcast (replica 0's value wins), reduce_to's destinations (the
// host, the replicas, one core), mirrored variables, update (with fn's results, grouped or not) and
// read_var, each launch one in which every replica works on its own copy in its own arena.
#include "hal/core.hpp"
#include "runtime/tpu/spmd/logical_devices_context.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/replicate/executor.hpp"
#include "runtime/tpu/strategy/device_destination.hpp"
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
  UpdateBody fn;  // its own copy of a stored callable: replicas read it during the launch
  const MirroredVariable* variable;
};

UpdateCall update_call;  // read by the replicas of update's launch

// Logical core 0 of each replica updates the replica's copy; with model parallelism the replica's
// other logical cores run fn too (SPMD: its collectives need every core) on a private copy in their
// arena, taken before logical core 0 starts changing the replica's.
Status update_copy(StrategyReplicaContext& context, ReplicaArgs args, ReplicaOutputs& outputs, const UpdateCall& call) {
  const Tensor& copy_of_replica = call.variable->copy(context.replica_id_in_sync_group());
  if (context.replica().num_logical_cores() == 1) return call.fn(context, copy_of_replica, args, outputs);
  Tensor variable = copy_of_replica;
  if (context.replica().logical_core() != 0) {
    Result<Tensor> private_copy =
        context.arena().allocate_tensor(copy_of_replica.dtype, copy_of_replica.shape, "a logical core's variable copy");
    if (!private_copy) return private_copy.status();
    RT_RETURN_IF_ERROR(copy(copy_of_replica, *private_copy));
    variable = *private_copy;
  }
  RT_RETURN_IF_ERROR(logical_devices().barrier());
  return call.fn(context, variable, args, outputs);
}

// TF's select_device_mirrored: an update's distributed arguments must be mirrored.
Status require_mirrored_arguments(Span<const ValueRef> args) {
  for (size_t k = 0; k < args.size(); ++k)
    if (args[k].kind() == ValueKind::kPerReplica)
      return Status::error(StatusCode::kInvalidArgument,
                           "Expected value to be mirrored across replicas: PerReplica with {} components in update's "
                           "argument {}.",
                           args[k].num_components(), k);
  return Status::ok();
}

// Each replica's one result of fn (replica 0 said how many: one, or none for a Status-returning fn).
Status collect_results(const ReplicateResult& result, unsigned replicas, Tensor* results) {
  for (unsigned r = 0; r < replicas; ++r) {
    if (result[r].size() != 1)
      return invalid_argument("update: replica {} returned {} values from fn, expected 1", r, result[r].size());
    results[r] = result[r][0];
  }
  return Status::ok();
}

// The single TPU core `core` of this board as a destination: a copy in its arena (the core is idle
// between launches; the calling core's own arena is the program's memory).
Result<DistributedValue> copy_to_core(const Tensor& value, unsigned core) {
  if (core != hal::core_id() && !core_idle(core))
    return Status::error(StatusCode::kFailedPrecondition,
                         "reduce_to: core {} is still running a replica of an earlier launch (it timed out)", core);
  const Tensor placed = RT_TRY(hbm_of(core).allocate_tensor(value.dtype, value.shape, "a reduce_to result"));
  RT_RETURN_IF_ERROR(copy(value, placed));
  return DistributedValue::plain(placed);
}

}  // namespace

Result<DistributedValue> TPUStrategy::broadcast(const DistributedValue& value) {
  const DistributedValue source = DistributedValue::plain(value.component(0));
  const StrategyFunction body{"broadcast", copy_to_replica, Signature{1}};
  const ReplicateResult* result = nullptr;
  const ValueRef source_ref = source;
  RT_RETURN_IF_ERROR(launch(body, Span<const ValueRef>(&source_ref, 1), &result));
  Tensor copies[kMaxReplicas];
  for (unsigned r = 0; r < num_replicas_; ++r) copies[r] = (*result)[r][0];
  return DistributedValue::mirrored(Span<const Tensor>(copies, num_replicas_));
}

Status TPUStrategy::create_mirrored_variable(const Tensor& initial_value, MirroredVariable& variable) {
  Result<DistributedValue> copies = broadcast(DistributedValue::plain(initial_value));
  if (!copies) return copies.status();
  variable.copies = *copies;
  variable.strategy = this;
  return Status::ok();
}

Status TPUStrategy::update(MirroredVariable& variable, const UpdateFunction& fn, Span<const DistributedValue> args) {
  const ValueRefList refs = RT_TRY(value_refs(args, "update:"));
  return update(variable, fn, refs.span());
}

Status TPUStrategy::update(MirroredVariable& variable, const UpdateFunction& fn, Span<const ValueRef> args) {
  const UpdateFunction* status_fn = &fn;  // the launch is synchronous: fn outlives it
  const UpdateBody body = [status_fn](StrategyReplicaContext& context, const Tensor& copy_of_replica, ReplicaArgs fn_args,
                                      ReplicaOutputs&) { return (*status_fn)(context, copy_of_replica, fn_args); };
  const ReplicateResult* result = nullptr;
  return update_launch(variable, body, args, &result);
}

Status TPUStrategy::update_launch(MirroredVariable& variable, const UpdateBody& body, Span<const ValueRef> args,
                                  const ReplicateResult** result) {
  if (variable.copies.kind() != ValueKind::kMirrored || variable.copies.num_components() != num_replicas_)
    return invalid_argument("update: the variable has {} copies of kind {}, expected a Mirrored value with {} copies",
                            variable.copies.num_components(), value_kind_name(variable.copies.kind()), num_replicas_);
  RT_RETURN_IF_ERROR(require_mirrored_arguments(args));
  RT_RETURN_IF_ERROR(require_idle_replicas());  // before `update_call`, which a straggling replica may read
  update_call = UpdateCall{body, &variable};
  const StrategyFunction launched{"update",
                                  [](StrategyReplicaContext& context, ReplicaArgs update_args, ReplicaOutputs& outputs) {
                                    return update_copy(context, update_args, outputs, update_call);
                                  },
                                  Signature{0, 0, true}};
  return launch(launched, args, result);
}

Result<DistributedValue> TPUStrategy::update_grouped(MirroredVariable& variable, const UpdateBody& body,
                                                     Span<const ValueRef> args) {
  const UpdateResults results = RT_TRY(update_ungrouped(variable, body, args));
  if (results.count == 1) return DistributedValue::plain(results[0]);  // TF's regroup of one value
  return DistributedValue::mirrored(results.span());
}

Result<UpdateResults> TPUStrategy::update_ungrouped(MirroredVariable& variable, const UpdateBody& body,
                                                    Span<const ValueRef> args) {
  const ReplicateResult* result = nullptr;
  RT_RETURN_IF_ERROR(update_launch(variable, body, args, &result));
  UpdateResults results;
  RT_RETURN_IF_ERROR(collect_results(*result, num_replicas_, results.values));
  results.count = num_replicas_;
  return results;
}

Result<DistributedValue> TPUStrategy::reduce_to(ReduceOp op, const DistributedValue& value,
                                                const Destinations& destinations) {
  return place(DistributedValue::plain(RT_TRY(reduce(op, value))), destinations);
}

Result<DistributedValue> TPUStrategy::place(const DistributedValue& value, const Destinations& destinations) {
  switch (destinations.kind()) {
    case Destinations::Kind::kHost: break;
    case Destinations::Kind::kReplicas: return broadcast(value);
    case Destinations::Kind::kDevice: {
      const DeviceDestination device = RT_TRY(parse_device_destination(destinations.device_name(), resolver_));
      if (!device.host) return copy_to_core(value.component(0), device.core);
      break;
    }
  }
  return value;
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

namespace {

// batch_reduce_to's loop: reduce_one(pair) per pair, in order, into `results`; if a pair fails, every
// result is reset (nothing half written).
template <class ReduceOne>
Status reduce_pairs(Span<const ValueDestination> pairs, Span<DistributedValue> results, const ReduceOne& reduce_one) {
  if (results.size() != pairs.size())
    return invalid_argument("batch_reduce_to: {} results for {} (value, destinations) pairs", results.size(), pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    Result<DistributedValue> reduced = reduce_one(pairs[i]);
    if (!reduced) {
      for (DistributedValue& result : results) result = DistributedValue();
      return reduced.status();
    }
    results[i] = *reduced;
  }
  return Status::ok();
}

}  // namespace

Status TPUStrategy::batch_reduce_to(ReduceOp op, Span<const ValueDestination> pairs, Span<DistributedValue> results) {
  return reduce_pairs(pairs, results,
                      [&](const ValueDestination& pair) { return reduce_to(op, pair.value, pair.destinations); });
}

Status TPUStrategy::batch_reduce_to(VariableAggregation aggregation, Span<const ValueDestination> pairs,
                                    Span<DistributedValue> results) {
  if (aggregation == VariableAggregation::kNone)
    return invalid_argument("batch_reduce: aggregation VariableAggregation.NONE is not SUM, MEAN or ONLY_FIRST_TOWER");
  return reduce_pairs(pairs, results, [&](const ValueDestination& pair) {
    return reduce_to(aggregation, pair.value, pair.destinations);
  });
}

Result<DistributedValue> TPUStrategy::broadcast(const DistributedValue& value, const Destinations& destinations) {
  return place(DistributedValue::plain(value.component(0)), destinations);
}

Result<Tensor> TPUStrategy::read_var(const MirroredVariable& variable) const {
  RT_RETURN_IF_ERROR(require_cross_replica_context());
  const Tensor& primary = variable.copy(0);
  const Tensor value = RT_TRY(hbm().allocate_tensor(primary.dtype, primary.shape, "read_var"));
  RT_RETURN_IF_ERROR(copy(primary, value));
  return value;
}

}  // namespace rt::tpu
