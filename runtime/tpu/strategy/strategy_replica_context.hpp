// StrategyReplicaContext: TF's tf.distribute.ReplicaContext for functions TPUStrategy runs on the
// replicas (run, update, run_steps_on_dataset): replica_id_in_sync_group, num_replicas_in_sync,
// all_reduce, broadcast (replica 0's value wins) and merge_call (replica_context_merge.hpp). It wraps
// the replicate ReplicaContext of the replica (collectives, arena), which stays reachable.
//
// all_reduce(op, value) is TPUStrategy's in-replica reduce (TPUExtended._reduce_to inside a TPU
// context): SUM = cross_replica_sum(value); MEAN = cross_replica_sum(value * cast(float32(1 / N)))
// (scaled before summing, as TF does; float dtypes only: TF's `value *= 1. / N` cannot take an
// integer tensor); other ops: the "`reduce_op`=... is not supported" text; op names "sum"/"mean".
// The list form reduces many values in one collective (TF packs a structure's tensors the same way);
// each element is reduced in the same group order, so the bits equal the one-at-a-time form's.
//
// The current context: while a strategy function runs on a core, current_strategy_replica_context()
// is its context (TF's get_replica_context() in replica context); elsewhere (the program, and
// merge_fn, which runs in cross-replica context) it is null, and merge_call() there fails with TF's
// "Need to be inside `call_for_each_replica()`".
#pragma once
#include "merge_callable.hpp"
#include "replica_context_merge.hpp"
#include "runtime/collectives/reduce.hpp"
#include "runtime/tpu/nest/nest.hpp"

namespace rt::tpu {

// The most values one collective of a list all_reduce packs: a longer list (or structure) is reduced
// in groups of this many, one collective per dtype per group.
inline constexpr size_t kMaxAllReduceValues = 32;

class StrategyReplicaContext {
 public:
  StrategyReplicaContext(ReplicaContext& replica, MergeRendezvous& rendezvous)
      : replica_(replica), merge_(replica, rendezvous) {}
  StrategyReplicaContext(const StrategyReplicaContext&) = delete;
  StrategyReplicaContext& operator=(const StrategyReplicaContext&) = delete;

  unsigned replica_id_in_sync_group() const { return replica_.replica_id(); }
  unsigned num_replicas_in_sync() const { return replica_.num_replicas(); }
  // The replicate context underneath: collectives with groups, core, arena.
  ReplicaContext& replica() const { return replica_; }
  Arena& arena() const { return replica_.arena(); }

  Result<Tensor> all_reduce(ReduceOp op, const Tensor& value);
  Result<Tensor> all_reduce(StringView op, const Tensor& value);
  // TF's all_reduce of a structure of values (a list: every gradient of a model at once), each
  // reduced as all_reduce(op, value) would, in one collective per dtype: the values of a dtype are
  // packed into one buffer, reduced together and handed back as views of the result (results[i] for
  // values[i]), so a step pays one round of synchronisation, not one per tensor.
  Status all_reduce(ReduceOp op, Span<const Tensor> values, Span<Tensor> results);
  // all_reduce of a structure (nest.hpp: a struct of gradients, an Array, ...): every leaf reduced as
  // above, the structure kept: Params total = RT_TRY(context.all_reduce(ReduceOp::kSum, grads)).
  template <class S>
    requires(nest::is_structure_v<S> && !nest::is_leaf_v<S>)
  Result<S> all_reduce(ReduceOp op, const S& value) {
    S results = value;
    const auto values = nest::leaf_addresses(value);
    const auto outputs = nest::mutable_leaf_addresses(results);
    RT_RETURN_IF_ERROR(all_reduce_leaves(op, values.span(), outputs.span()));
    return results;
  }
  // The list and structure forms' work: values[i] reduced into *results[i], in groups.
  Status all_reduce_leaves(ReduceOp op, Span<const Tensor* const> values, Span<Tensor* const> results);
  // Every replica gets replica 0's value.
  Result<Tensor> broadcast(const Tensor& value);
  // TF 2.x's ReplicaContext.all_gather(value, axis): every replica gets the replicas' values
  // concatenated along `axis` (negative counts from the end) in replica order; a scalar becomes a
  // vector of N. Every replica's value must have the same shape.
  Result<Tensor> all_gather(const Tensor& value, int64_t axis);
  // merge_fn(strategy, args, result) with any number of arguments and results.
  Status merge_call(const MergeFn& merge_fn, Span<const Tensor> args, MergeOutputs& outputs);
  // merge_call(merge_fn, args=(...)) returning this replica's part of merge_fn's one value; merge_fn
  // a lambda taking (TPUStrategy&, const DistributedValue&...) (merge_callable.hpp).
  template <class F, class... Args>
    requires(is_same_v<remove_cvref_t<Args>, Tensor> && ...)
  Result<Tensor> merge_call(const F& merge_fn, const Args&... args);

  // For the strategy's launches.
  MergeParticipant& merge() { return merge_; }

 private:
  Status all_reduce_group(ReduceOp op, Span<const Tensor* const> values, Span<Tensor* const> results);

  ReplicaContext& replica_;
  MergeParticipant merge_;
};

template <class F, class... Args>
  requires(is_same_v<remove_cvref_t<Args>, Tensor> && ...)
Result<Tensor> StrategyReplicaContext::merge_call(const F& merge_fn, const Args&... args) {
  const Tensor values[] = {args..., Tensor()};
  MergeOutputs outputs;
  RT_RETURN_IF_ERROR(merge_call(detail::merge_fn_of(merge_fn), Span<const Tensor>(values, sizeof...(Args)), outputs));
  if (outputs.size() != 1)
    return Status::error(StatusCode::kInvalidArgument,
                         "merge_call: merge_fn returned {} values; this form returns exactly one (the MergeOutputs "
                         "form takes any number)",
                         outputs.size());
  return outputs[0];
}

// The calling core's strategy replica context, or null (cross-replica context or no strategy).
StrategyReplicaContext* current_strategy_replica_context();

// Makes `context` current on the calling core for the scope's lifetime (null: cross-replica context).
class StrategyContextScope {
 public:
  explicit StrategyContextScope(StrategyReplicaContext* context);
  ~StrategyContextScope();
  StrategyContextScope(const StrategyContextScope&) = delete;
  StrategyContextScope& operator=(const StrategyContextScope&) = delete;

 private:
  StrategyReplicaContext* previous_;
};

// get_replica_context().merge_call(...) from anywhere: the current context's, or TF's error.
Status merge_call(const MergeFn& merge_fn, Span<const Tensor> args, MergeOutputs& outputs);

}  // namespace rt::tpu
