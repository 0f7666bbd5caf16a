// TPUStrategy: TF's tf.distribute.TPUStrategy on the board (TF_BEHAVIOUR.md section 6), built on
// replicate: every call that runs code on the replicas is one replicate launch, called by the
// program on core 0 (run_program). Pieces:
//   - construction: TPUStrategy::for_board() (the board's TPUClusterResolver) or create(resolver,
//     options); num_replicas_in_sync = the core count without a device assignment, else
//     device_assignment.num_replicas (strategy_cluster.hpp). options.steps_per_run is the contrib
//     API's steps_per_run (run_steps_on_dataset's default iteration count).
//   - run(fn, args): replica r runs fn with replica id r and component r of every argument (plain
//     arguments go to every replica as they are), in its StrategyReplicaContext (all_reduce,
//     broadcast, merge_call); returns one value per output: a PerReplica, or the plain value with
//     one replica (TF's regroup). Every replica must return the same number of values.
//   - reduce(op, value, axis): strategy_reduce.hpp, computed by the calling core (cross-replica
//     context only: "Method requires being in cross-replica context, use
//     get_replica_context().merge_call()" elsewhere), result in the calling core's arena.
//   - broadcast(value): a Mirrored copy, in every replica's arena, of replica 0's component (the
//     value itself if plain): replica 0's value wins. reduce_to / batch_reduce_to: reduce, then the
//     result on the host or mirrored on the replicas (Destinations).
//   - hosts and devices (num_hosts, worker_devices, ...: strategy_hosts.hpp), extended(),
//     gather / experimental_local_results / experimental_distribute_values_from_function, and the
//     contrib names (call_for_each_tower, worker_device_index, initialize, read_var, ...).
//   - mirrored variables: create_mirrored_variable copies an initial value to every replica;
//     update(var, fn, args) runs fn on every replica, in place on that replica's copy, with the
//     replica's component of each argument (mirrored or plain arguments keep the copies equal).
//   - experimental_distribute_dataset / distribute_datasets_from_function: strategy_input.hpp.
//   - run_steps_on_dataset(fn, iterator, context, iterations): strategy_steps.hpp; one launch runs
//     every step on the replicas before control returns to the program.
// Model parallelism: with a device assignment giving each replica several cores (computation_shape
// spanning cores), every call runs the function on each logical core of each replica (SPMD, as
// replicate does), so experimental_split_to_logical_devices and friends (spmd_tensor.hpp) and the
// LogicalDevices collectives work inside it; num_replicas_in_sync counts replicas; a replica's
// outputs are its logical core 0's; all_reduce/broadcast act across the replicas between the same
// logical core; merge_call runs merge_fn once with logical core 0's values (replica_context_merge.hpp);
// update applies fn to the replica's copy on logical core 0 (the other logical cores run it on a
// private copy, so collectives inside fn stay SPMD); run_steps_on_dataset keeps logical core 0's
// last-step outputs.
// Outputs live in the replicas' arenas; a PodMemoryScope around a group of calls gives them back.
// The strategy refers to the device assignment it was given, which must outlive it.
#pragma once
#include "multi_step_context.hpp"
#include "per_replica.hpp"
#include "runtime/tpu/mesh/pod_membership.hpp"
#include "runtime/tpu/replicate/replicate.hpp"
#include "strategy_cluster.hpp"
#include "strategy_gather.hpp"
#include "strategy_hosts.hpp"
#include "strategy_input.hpp"
#include "strategy_reduce.hpp"
#include "strategy_replica_context.hpp"
#include "strategy_scope.hpp"

namespace rt::tpu {

// Where reduce_to and batch_reduce_to put a result (TF's `destinations`): the host (the program's
// memory: a plain value), or the devices of a distributed value or mirrored variable's copies (every
// replica's core: a Mirrored value with a copy of the result on each; a plain value's device is the
// host). A single TPU core is not a destination yet (TF copies the result to that one device).
class Destinations {
 public:
  static Destinations host() { return Destinations(false); }
  static Destinations devices_of(const DistributedValue& value) { return Destinations(value.is_distributed()); }
  bool replicas() const { return replicas_; }

 private:
  explicit Destinations(bool replicas) : replicas_(replicas) {}
  bool replicas_;
};

// How a variable's per-replica updates combine (tf.VariableAggregation; contrib's reduce and
// batch_reduce take one, with ONLY_FIRST_TOWER as contrib's name for kOnlyFirstReplica).
enum class VariableAggregation : uint8_t { kNone, kSum, kMean, kOnlyFirstReplica };

// One (value, destinations) pair of batch_reduce_to.
struct ValueDestination {
  DistributedValue value;
  Destinations destinations = Destinations::host();
};

// What experimental_distribute_values_from_function's function is told (TF's ValueContext).
struct ValueContext {
  unsigned replica_id_in_sync_group = 0;
  unsigned num_replicas_in_sync = 1;
};

struct StrategyOptions {
  const DeviceAssignment* device_assignment = nullptr;  // must outlive the strategy
  unsigned steps_per_run = 1;
  uint64_t timeout_ns = kDefaultReplicaTimeoutNs;
  uint64_t collective_timeout_ns = kDefaultWaitTimeoutNs;
};

// The function run() calls on every replica, as the runtime calls it: its values go to `outputs`,
// in order. Stored by value (an InplaceFunction): the launch keeps its own copy.
using StrategyBody = InplaceFunction<Status(StrategyReplicaContext& context, ReplicaArgs args, ReplicaOutputs& outputs)>;

struct StrategyFunction {
  StringView name;
  StrategyBody fn;
  Signature signature{0, 0, true};  // checked like replicate's computations; default: *args
};

// The strategy function `fn`: a lambda or any callable taking an optional StrategyReplicaContext&
// and then one Tensor per argument, returning Status, Tensor, Result<Tensor> or an Array of
// Tensors (callable_computation.hpp); its arity is deduced.
template <class F>
StrategyFunction strategy_function_of(StringView name, F fn) {
  using Function = detail::ReplicaFunction<F, StrategyReplicaContext>;
  return StrategyFunction{name, Function::body(fn), Signature{Function::kLeaves}};
}

// run()'s result: one value per output (caller storage: it is large).
struct RunOutputs {
  unsigned count = 0;
  DistributedValue values[kMaxReplicaOutputs];

  unsigned size() const { return count; }
  const DistributedValue& operator[](unsigned index) const { return values[index]; }
};

// What the value-returning run() gives back for a function returning Status, a Tensor or an Array
// of Tensors: one value per output, kept in pod memory (the calling core's arena; a PodMemoryScope
// around the calls gives them back). A function returning a struct gets a PerReplica<struct>.
class RunResult {
 public:
  RunResult() = default;
  RunResult(const DistributedValue* values, unsigned count) : values_(values), count_(count) {}
  unsigned size() const { return count_; }
  const DistributedValue& operator[](unsigned index) const { return values_[index]; }
  const DistributedValue* values() const { return values_; }

 private:
  const DistributedValue* values_ = nullptr;
  unsigned count_ = 0;
};

// What run() may take as an argument: a Tensor (plain), a DistributedValue, a structure of Tensors
// (plain: every replica gets it as it is) or a PerReplica<structure> (replica r gets its structure).
template <class A>
inline constexpr bool is_run_argument_v = is_same_v<remove_cvref_t<A>, DistributedValue> || is_per_replica_v<A> ||
                                          nest::is_structure_v<remove_cvref_t<A>>;

namespace detail {
// The tensors an argument passes (a structure's leaves).
template <class A>
constexpr size_t run_argument_leaves() {
  using T = remove_cvref_t<A>;
  if constexpr (is_same_v<T, DistributedValue>) return 1;
  else if constexpr (is_per_replica_v<T>) return T::kLeaves;
  else return nest::leaf_count_v<T>;
}
template <class A>
void add_run_argument(const A& argument, ValueRef* refs, unsigned& count) {
  using T = remove_cvref_t<A>;
  if constexpr (is_same_v<T, DistributedValue>) {
    refs[count++] = argument;
  } else if constexpr (is_per_replica_v<T>) {
    for (const DistributedValue& leaf : argument.leaves()) refs[count++] = leaf;
  } else {
    nest::for_each_leaf(argument, [&](const Tensor& leaf) { refs[count++] = leaf; });
  }
}
template <class S> struct StructuredRun { static constexpr bool value = nest::is_tuple_v<S>; };
}  // namespace detail

// A variable mirrored on every replica: copy r lives in replica r's arena.
struct MirroredVariable {
  DistributedValue copies;

  const Tensor& copy(unsigned replica) const { return copies.component(replica); }
  // TF's read_value() in cross-replica context: the copy on this host, i.e. this board's first
  // replica's (replica 0's on a single board; in a pod of boards the other boards' copies live there).
  const Tensor& read_value() const {
    return copies.component(pod_membership().first_local_replica(copies.num_components()));
  }
};

// update()'s function, as the runtime calls it: changes `variable` (the replica's copy) in place.
using UpdateFunction = InplaceFunction<Status(StrategyReplicaContext& context, const Tensor& variable, ReplicaArgs args)>;

namespace detail {
// update's lambda: (StrategyReplicaContext&, const Tensor& variable, const Tensor&... args) -> Status.
template <class F>
struct UpdateCallable {
  static constexpr unsigned kArity = Count<typename CallTraits<F>::Params>::value - 2;
  template <size_t... I>
  static Status invoke(const F& fn, StrategyReplicaContext& context, const Tensor& variable,
                       [[maybe_unused]] ReplicaArgs args, Indices<I...>) {  // unused when fn takes no argument
    return fn(context, variable, args[I]...);
  }
  static Status call(const F& fn, StrategyReplicaContext& context, const Tensor& variable, ReplicaArgs args) {
    if (args.size() != kArity)
      return Status::error(StatusCode::kInvalidArgument, "update: the function takes {} arguments besides the variable, "
                           "update gave it {}", kArity, args.size());
    return invoke(fn, context, variable, args, typename MakeIndices<kArity>::type{});
  }
};
}  // namespace detail

template <class F>
UpdateFunction update_function_of(F fn) {
  return [fn](StrategyReplicaContext& context, const Tensor& variable, ReplicaArgs args) {
    return detail::UpdateCallable<F>::call(fn, context, variable, args);
  };
}

// distribute_datasets_from_function's function, called once per input pipeline.
using DatasetFunction = InplaceFunction<Result<Dataset>(const InputContext& context)>;

class StepContext;  // strategy_steps.hpp
// run_steps_on_dataset's function: one step on one replica, with the replica's element of the step
// (its tensors: one, or a structure's leaves).
struct StepFunction {
  StringView name;
  InplaceFunction<Status(StepContext& step, ReplicaArgs inputs)> fn;  // stored by value
  unsigned num_inputs = 1;  // the tensors of an element the function takes
};

// run_steps_on_dataset's function as a lambda: (StepContext& step, const S& inputs) -> Status, S a
// Tensor or a structure of the dataset's element (struct Batch { Tensor x, y; }: TF's (x, y) element).
template <class F>
StepFunction step_function_of(StringView name, F fn) {
  using Params = typename detail::CallTraits<F>::Params;
  static_assert(detail::Count<Params>::value == 2, "a step function takes (StepContext&, const S& inputs)");
  using Inputs = remove_cvref_t<typename detail::TypeAt<1, Params>::type>;
  constexpr unsigned kInputs = static_cast<unsigned>(nest::leaf_count_v<Inputs>);
  auto body = [fn](StepContext& step, ReplicaArgs inputs) -> Status {
    if constexpr (nest::is_leaf_v<Inputs>) return fn(step, inputs[0]);
    else return fn(step, nest::build<Inputs>([&](size_t leaf) { return inputs[leaf]; }));
  };
  return StepFunction{name, body, kInputs};
}

class TPUExtended;

class TPUStrategy {
 public:
  static Result<TPUStrategy> create(const TPUClusterResolver& resolver, const StrategyOptions& options = {});
  // The running board's cluster (hal::core_count() cores).
  static Result<TPUStrategy> for_board(const StrategyOptions& options = {});

  unsigned num_replicas_in_sync() const { return num_replicas_; }
  // with strategy.scope(): this strategy is the calling core's current one while the scope lives
  // (strategy_scope.hpp: TF's nesting rules and texts).
  Result<StrategyScope> scope() const { return enter_strategy_scope(*this); }
  unsigned steps_per_run() const { return options_.steps_per_run; }
  const DeviceAssignment* device_assignment() const { return options_.device_assignment; }
  const TPUClusterResolver& cluster_resolver() const { return resolver_; }
  // strategy.extended (TPUExtended, below).
  TPUExtended extended() const;

  // Hosts and devices (strategy_hosts.hpp: a board is TF's local TPU, one host). The contrib names
  // (towers = replicas) and TF 2.x's side by side.
  bool between_graph() const { return false; }  // TF 2.x: extended.experimental_between_graph
  bool is_single_tower() const { return num_replicas_ == 1; }
  unsigned num_hosts() const { return strategy_num_hosts(resolver_, options_.device_assignment); }
  unsigned num_towers_per_host() const { return resolver_.num_cores(); }  // the host's cores, as contrib
  unsigned num_replicas_per_host() const { return strategy_num_replicas_per_host(resolver_, options_.device_assignment); }
  WorkerDevices worker_devices() const { return strategy_worker_devices(resolver_, options_.device_assignment); }
  WorkerDevices parameter_devices() const { return worker_devices(); }  // mirrored variables live there
  DeviceName get_host_cpu_device(int host_id) const { return strategy_host_cpu_device(resolver_, host_id); }
  DeviceName non_slot_devices() const { return strategy_non_slot_device(resolver_); }
  // A board's program checkpoints, initialises and writes summaries itself (TF: true on every worker).
  bool should_checkpoint() const { return true; }
  bool should_init() const { return true; }  // TF 2.x: extended.experimental_should_init
  bool should_save_summary() const { return true; }
  // replicate launches this strategy made (run_steps_on_dataset makes one for all its steps).
  uint64_t launches() const { return launches_; }

  Status run(const StrategyFunction& fn, Span<const DistributedValue> args, RunOutputs& outputs);
  // strategy.run(fn, args=(...)) returning its outputs: fn a lambda (strategy_function_of), the
  // arguments Tensors (plain) or DistributedValues.
  Result<RunResult> run(const StrategyFunction& fn, Span<const DistributedValue> args);
  Result<RunResult> run(const StrategyFunction& fn, Span<const ValueRef> args);
  // strategy.run(fn, args...) with fn a lambda whose parameters and result are structures (nest.hpp):
  // the arguments are Tensors, DistributedValues, structures (plain) or PerReplica structures;
  // a function returning a struct S gives a PerReplica<S>, one returning Status, a Tensor or an
  // Array of Tensors a RunResult (one value per output).
  template <class F, class... Args>
    requires(!is_same_v<F, StrategyFunction> && (is_run_argument_v<Args> && ...))
  auto run(const F& fn, const Args&... args) {
    using Output = typename detail::ReplicaFunction<F, StrategyReplicaContext>::Output;
    constexpr size_t kArguments = (size_t{0} + ... + detail::run_argument_leaves<Args>());
    static_assert(kArguments <= kMaxReplicaInputs, "strategy.run: at most kMaxReplicaInputs tensors of arguments");
    ValueRef refs[kArguments + 1];
    unsigned count = 0;
    (detail::add_run_argument(args, refs, count), ...);
    Result<RunResult> outputs = run(strategy_function_of("fn", fn), Span<const ValueRef>(refs, count));
    if constexpr (detail::StructuredRun<Output>::value) {
      if (!outputs) return Result<PerReplica<Output>>(outputs.status());
      return Result<PerReplica<Output>>(PerReplica<Output>(outputs->values()));
    } else {
      return outputs;
    }
  }
  Result<Tensor> reduce(ReduceOp op, const DistributedValue& value, ReduceAxis axis = ReduceAxis::none()) const;
  Result<Tensor> reduce(StringView op, const DistributedValue& value, ReduceAxis axis = ReduceAxis::none()) const;
  // TF's reduce of a nested structure: every leaf reduced as above, the structure kept.
  template <class S>
  Result<S> reduce(ReduceOp op, const PerReplica<S>& value, ReduceAxis axis = ReduceAxis::none()) const {
    return nest::try_build<S>([&](size_t leaf) { return reduce(op, value.leaf(leaf), axis); });
  }
  Result<DistributedValue> broadcast(const DistributedValue& value);
  // TF's extended.reduce_to(op, value, destinations) (contrib: reduce(aggregation, value,
  // destinations)): reduce() across replicas, then the result where `destinations` says, as TF 2.x
  // places it. batch_reduce_to (contrib: batch_reduce): one reduce_to per pair, in order, into
  // `results` (as many as pairs); if a pair fails, every result is reset (none is half written).
  Result<DistributedValue> reduce_to(ReduceOp op, const DistributedValue& value, const Destinations& destinations);
  Status batch_reduce_to(ReduceOp op, Span<const ValueDestination> pairs, Span<DistributedValue> results);
  // contrib's reduce(aggregation, value, destinations): SUM and MEAN as reduce_to; ONLY_FIRST_TOWER
  // takes replica 0's value (placed at `destinations`); NONE is TF's conversion error.
  Result<DistributedValue> reduce_to(VariableAggregation aggregation, const DistributedValue& value,
                                     const Destinations& destinations);
  // strategy.gather(value, axis): the replicas' values concatenated along `axis` in replica order, in
  // the program's memory (a plain value as it is). Cross-replica context only (strategy_gather.hpp).
  Result<Tensor> gather(const DistributedValue& value, int64_t axis) const;
  // experimental_local_results (TF 2.x) and unwrap (contrib): the components in replica order, or the
  // plain value alone.
  Span<const Tensor> experimental_local_results(const DistributedValue& value) const { return value.local_results(); }
  Span<const Tensor> unwrap(const DistributedValue& value) const { return value.local_results(); }
  // experimental_distribute_values_from_function(value_fn): value_fn(ValueContext{r, N}) for every
  // replica r in order, run here in the program; always a PerReplica value, even with one replica
  // (unlike run's outputs). value_fn returns a Tensor or a Result<Tensor>.
  // A value_fn returning a struct S (or Result<S>) gives a PerReplica<S>.
  template <class F>
  auto experimental_distribute_values_from_function(const F& value_fn) const;
  Status create_mirrored_variable(const Tensor& initial_value, MirroredVariable& variable);
  Status update(MirroredVariable& variable, const UpdateFunction& fn, Span<const DistributedValue> args);
  Status update(MirroredVariable& variable, const UpdateFunction& fn, Span<const ValueRef> args);
  // update(var, fn, args...) with fn a lambda (StrategyReplicaContext&, const Tensor& variable,
  // const Tensor&... args) -> Status; arguments Tensors (plain) or DistributedValues.
  template <class F, class... Args>
    requires((is_same_v<remove_cvref_t<Args>, Tensor> || is_same_v<remove_cvref_t<Args>, DistributedValue>) && ...)
  Status update(MirroredVariable& variable, const F& fn, const Args&... args) {
    const ValueRef refs[] = {ValueRef(args)..., ValueRef()};
    return update(variable, update_function_of(fn), Span<const ValueRef>(refs, sizeof...(Args)));
  }

  // contrib's call_for_each_tower(fn, args...): run under its older name. worker_device_index: an
  // argument for it giving each replica the index of its worker device (worker_devices()[r]): int32
  // scalars 0..N-1 as a PerReplica value, the plain scalar 0 with one replica.
  template <class F, class... Args>
  auto call_for_each_tower(const F& fn, const Args&... args) {
    return run(fn, args...);
  }
  Result<DistributedValue> worker_device_index() const;
  // contrib's initialize / finalize: a board's TPU system is up once its firmware runs, so initialize
  // returns the topology initialize_tpu_system gives, and finalize has nothing to shut down.
  Result<Topology> initialize() const { return resolver_.initialize_tpu_system(); }
  Status finalize() const { return Status::ok(); }
  // contrib's read_var(v): the variable's value (replica 0's copy) copied into the program's memory.
  Result<Tensor> read_var(const MirroredVariable& variable) const;
  // contrib's value_container(value): a TPU value is its own container, as in TF.
  const DistributedValue& value_container(const DistributedValue& value) const { return value; }

  Result<DistributedDataset> experimental_distribute_dataset(const Dataset& dataset) const;
  // fn: a lambda (const InputContext&) -> Result<Dataset>, called once before this returns.
  Result<DistributedDataset> distribute_datasets_from_function(const DatasetFunction& fn) const;
  // Runs `iterations` steps (0: steps_per_run) of the iterator's dataset in one launch; `context`
  // gets the final step's outputs and the iterator moves past the steps run.
  Status run_steps_on_dataset(const StepFunction& fn, DistributedIterator& iterator, MultiStepContext& context,
                              unsigned iterations = 0);
  // The same with a lambda (StepContext& step, const S& inputs) -> Status (S: Tensor or a structure).
  template <class F>
    requires(!is_same_v<F, StepFunction>)
  Status run_steps_on_dataset(const F& fn, DistributedIterator& iterator, MultiStepContext& context,
                              unsigned iterations = 0) {
    return run_steps_on_dataset(step_function_of("step_fn", fn), iterator, context, iterations);
  }

 private:
  TPUStrategy() = default;
  // One replicate launch of `body` (merge_call enabled); `result` points at the replicas' outputs.
  Status launch(const StrategyFunction& body, Span<const DistributedValue> args, const ReplicateResult** result);
  Status launch(const StrategyFunction& body, Span<const ValueRef> args, const ReplicateResult** result);
  Status check_arguments(Span<const ValueRef> args) const;
  // A cross-replica result where `destinations` says: as it is (the host), or mirrored on the replicas.
  Result<DistributedValue> place(const DistributedValue& value, const Destinations& destinations);

  TPUClusterResolver resolver_;
  StrategyOptions options_;
  unsigned num_replicas_ = 1;
  uint64_t launches_ = 0;
};

// TF's strategy.extended (StrategyExtended, TPUExtended): the strategy's facts under the names TF 2.x
// keeps there, v1's steps_per_run included (read-only here: it is fixed when the strategy is made).
// A view of the strategy, valid while it lives.
class TPUExtended {
 public:
  explicit TPUExtended(const TPUStrategy& strategy) : strategy_(strategy) {}
  unsigned steps_per_run() const { return strategy_.steps_per_run(); }
  bool experimental_between_graph() const { return strategy_.between_graph(); }
  bool experimental_should_init() const { return strategy_.should_init(); }
  bool should_checkpoint() const { return strategy_.should_checkpoint(); }
  bool should_save_summary() const { return strategy_.should_save_summary(); }
  unsigned num_hosts() const { return strategy_.num_hosts(); }
  unsigned num_replicas_per_host() const { return strategy_.num_replicas_per_host(); }
  WorkerDevices worker_devices() const { return strategy_.worker_devices(); }
  WorkerDevices parameter_devices() const { return strategy_.parameter_devices(); }
  DeviceName non_slot_devices() const { return strategy_.non_slot_devices(); }

 private:
  const TPUStrategy& strategy_;
};

inline TPUExtended TPUStrategy::extended() const { return TPUExtended(*this); }

// TF's _require_cross_replica_or_default_context: an error inside a strategy replica function.
Status require_cross_replica_context();

template <class F>
auto TPUStrategy::experimental_distribute_values_from_function(const F& value_fn) const {
  using S = remove_cvref_t<typename detail::ReturnedValue<remove_cvref_t<decltype(value_fn(ValueContext{}))>>::type>;
  if constexpr (nest::is_leaf_v<S>) {
    Tensor values[kMaxReplicas];
    for (unsigned replica = 0; replica < num_replicas_; ++replica) {
      Result<Tensor> value = value_fn(ValueContext{replica, num_replicas_});
      if (!value) return Result<DistributedValue>(value.status());
      values[replica] = *value;
    }
    return DistributedValue::per_replica(Span<const Tensor>(values, num_replicas_));
  } else {
    using Out = Result<PerReplica<S>>;
    Result<DistributedValue*> leaves = allocate_distributed_values(nest::leaf_count_v<S>);
    if (!leaves) return Out(leaves.status());
    for (size_t leaf = 0; leaf < nest::leaf_count_v<S>; ++leaf)
      (*leaves)[leaf] = DistributedValue::per_replica_of(num_replicas_);
    for (unsigned replica = 0; replica < num_replicas_; ++replica) {
      Result<S> value = value_fn(ValueContext{replica, num_replicas_});
      if (!value) return Out(value.status());
      size_t leaf = 0;
      nest::for_each_leaf(*value, [&](const Tensor& t) { (*leaves)[leaf++].set_component(replica, t); });
    }
    return Out(PerReplica<S>(*leaves));
  }
}

}  // namespace rt::tpu
