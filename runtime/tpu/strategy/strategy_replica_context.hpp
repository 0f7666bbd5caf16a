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
#include "per_replica.hpp"
#include "strategy_hosts.hpp"
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
      : replica_(replica), rendezvous_(rendezvous), merge_(replica, rendezvous) {}
  StrategyReplicaContext(const StrategyReplicaContext&) = delete;
  StrategyReplicaContext& operator=(const StrategyReplicaContext&) = delete;

  unsigned replica_id_in_sync_group() const { return replica_.replica_id(); }
  unsigned num_replicas_in_sync() const { return replica_.num_replicas(); }
  // TF's ReplicaContext.strategy: the strategy running this function.
  const TPUStrategy& strategy() const { return *rendezvous_.strategy; }
  // TF's ReplicaContext.devices: the devices this replica runs on, as TF's TPU context gives them for
  // a known replica id: its worker device (worker_devices()[replica_id_in_sync_group]).
  WorkerDevices devices() const;
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
    const auto outputs = nest::leaf_addresses(results);
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
  // merge_call(merge_fn, args=(...)) returning this replica's part of merge_fn's value; merge_fn a
  // lambda taking (TPUStrategy&, then a const DistributedValue& per Tensor argument or a const
  // PerReplica<S>& per structure argument) (merge_callable.hpp). merge_fn returning a Tensor or
  // DistributedValue gives a Result<Tensor>; returning a structure S or a PerReplica<S>, a Result<S>.
  template <class F, class... Args>
    requires(nest::is_structure_v<remove_cvref_t<Args>> && ...)
  auto merge_call(const F& merge_fn, const Args&... args);

  // For the strategy's launches.
  MergeParticipant& merge() { return merge_; }

 private:
  Status all_reduce_group(ReduceOp op, Span<const Tensor* const> values, Span<Tensor* const> results);

  ReplicaContext& replica_;
  MergeRendezvous& rendezvous_;
  MergeParticipant merge_;
};

// The calling core's merge_call outputs (merge_call never nests: merge_fn runs in cross-replica context).
MergeOutputs& merge_outputs_of_core();

namespace detail {
// The structure a value-returning merge_call gives back for merge_fn's value type R (void: one Tensor).
template <class R> struct MergedStructure { using type = void; };
template <class R>
  requires(is_per_replica_v<R>)
struct MergedStructure<R> { using type = typename IsPerReplica<R>::Structure; };
template <class R>
  requires(nest::is_structure_v<R> && !nest::is_leaf_v<R>)
struct MergedStructure<R> { using type = R; };
}  // namespace detail

template <class F, class... Args>
  requires(nest::is_structure_v<remove_cvref_t<Args>> && ...)
auto StrategyReplicaContext::merge_call(const F& merge_fn, const Args&... args) {
  using Returned = remove_cvref_t<typename detail::ReturnedValue<remove_cvref_t<typename detail::CallTraits<F>::Return>>::type>;
  using S = typename detail::MergedStructure<Returned>::type;
  constexpr size_t kArguments = (size_t{0} + ... + nest::leaf_count_v<Args>);
  static_assert(kArguments <= kMaxMergeValues, "merge_call passes at most kMaxMergeValues tensors");
  Tensor values[kArguments + 1];
  size_t count = 0;
  (nest::for_each_leaf(args, [&](const Tensor& leaf) { values[count++] = leaf; }), ...);
  MergeOutputs& outputs = merge_outputs_of_core();
  const Status status = merge_call(detail::merge_fn_of(merge_fn), Span<const Tensor>(values, count), outputs);
  if constexpr (!is_same_v<S, void>) {
    if (!status.is_ok()) return Result<S>(status);
    return nest::pack_sequence_as<S>(outputs.span());
  } else {
    if (!status.is_ok()) return Result<Tensor>(status);
    if (outputs.size() != 1)
      return Result<Tensor>(Status::error(StatusCode::kInvalidArgument,
                                          "merge_call: merge_fn returned {} values; this form returns exactly one (the "
                                          "MergeOutputs form takes any number)",
                                          outputs.size()));
    return Result<Tensor>(outputs[0]);
  }
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
