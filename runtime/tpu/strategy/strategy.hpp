// TPUStrategy: TF's tf.distribute.TPUStrategy on the board (TF_BEHAVIOUR.md section 6), built on
// replicate: every call that runs code on the replicas is one replicate launch, called by the
// program on core 0 (run_program). Pieces:
//   - construction: TPUStrategy::for_board() (the board's TPUClusterResolver) or create(resolver,
//     options) (strategy_options.hpp); num_replicas_in_sync = the core count without a device
//     assignment, else device_assignment.num_replicas (strategy_cluster.hpp). options.steps_per_run
//     is the contrib API's steps_per_run (run_steps_on_dataset's default iteration count).
//   - run(fn, args) (strategy_function.hpp): replica r runs fn with replica id r and component r of
//     every argument (plain arguments go to every replica as they are), in its
//     StrategyReplicaContext (all_reduce, broadcast, merge_call); returns one value per output: a
//     PerReplica, or the plain value with one replica (TF's regroup). Every replica must return the
//     same number of values.
//   - reduce(op, value, axis): strategy_reduce.hpp, computed by the calling core (cross-replica
//     context only: "Method requires being in cross-replica context, use
//     get_replica_context().merge_call()" elsewhere), result in the calling core's arena.
//   - broadcast(value): a Mirrored copy, in every replica's arena, of replica 0's component (the
//     value itself if plain): replica 0's value wins. reduce_to / batch_reduce_to: reduce, then the
//     result on the host or mirrored on the replicas (destinations.hpp).
//   - hosts and devices (num_hosts, worker_devices, ...: strategy_hosts.hpp), extended()
//     (tpu_extended.hpp), gather / experimental_local_results / experimental_distribute_values_from_function, and the
//     contrib names (call_for_each_tower, worker_device_index, initialize, read_var, ...).
//   - mirrored variables (mirrored_variable.hpp): create_mirrored_variable copies an initial value to
//     every replica; update(var, fn, args) runs fn on every replica, in place on that replica's copy,
//     with the replica's component of each argument (mirrored or plain arguments keep the copies
//     equal), and returns fn's results merged (Mirrored) or, with group_false, one per copy.
//   - the other contrib elements: num_cores (strategy_num_cores.hpp), update_non_slot, map
//     (map_output.hpp), group (strategy_group.hpp), configure (session_config.hpp), colocate_vars_with
//     (colocation_scope.hpp), a single device as a destination (device_destination.hpp).
//   - experimental_distribute_dataset / distribute_datasets_from_function: strategy_input.hpp, with
//     InputOptions (input_options.hpp); run with RunOptions (run_options.hpp).
//   - the r1.13 / v1 names of the same things (num_towers, experimental_initialize / finalize,
//     experimental_run, make_dataset_iterator, make_input_fn_iterator, distribute_dataset,
//     experimental_distribute_datasets_from_function, experimental_make_numpy_dataset): thin members
//     calling the ones above (strategy_v1_names.cpp for those that keep a dataset).
//   - run_steps_on_dataset(fn, iterator, context, iterations, initial_loop_values):
//     strategy_steps.hpp, its function step_function.hpp; one launch runs every step on the replicas before control returns to the
//     program.
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
#include "colocation_scope.hpp"
#include "destinations.hpp"
#include "initial_loop_values.hpp"
#include "input_options.hpp"
#include "map_output.hpp"
#include "mirrored_variable.hpp"
#include "multi_step_context.hpp"
#include "per_replica.hpp"
#include "runtime/tpu/mesh/pod_membership.hpp"
#include "runtime/tpu/replicate/replicate.hpp"
#include "run_options.hpp"
#include "session_config.hpp"
#include "step_function.hpp"
#include "strategy_cluster.hpp"
#include "strategy_function.hpp"
#include "strategy_gather.hpp"
#include "strategy_group.hpp"
#include "strategy_hosts.hpp"
#include "strategy_input.hpp"
#include "strategy_options.hpp"
#include "strategy_reduce.hpp"
#include "strategy_replica_context.hpp"
#include "strategy_scope.hpp"
#include "update_non_slot.hpp"

namespace rt::tpu {

class TPUExtended;

class TPUStrategy {
 public:
  static Result<TPUStrategy> create(const TPUClusterResolver& resolver, const StrategyOptions& options = {});
  // The running board's cluster (hal::core_count() cores).
  static Result<TPUStrategy> for_board(const StrategyOptions& options = {});

  unsigned num_replicas_in_sync() const { return num_replicas_; }
  unsigned num_towers() const { return num_replicas_; }  // contrib r1.12's name
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
    Result<RunResult> outputs = run(strategy_function_of(callable_name<F>("fn"), fn), Span<const ValueRef>(refs, count));
    if constexpr (detail::StructuredRun<Output>::value) {
      if (!outputs) return Result<PerReplica<Output>>(outputs.status());
      return Result<PerReplica<Output>>(PerReplica<Output>(outputs->values()));
    } else {
      return outputs;
    }
  }
  // strategy.run(fn, args, options=RunOptions(...)) (run_options.hpp): the options first here; fn a lambda.
  template <class F, class... Args>
    requires(requires { &F::operator(); } && (is_run_argument_v<Args> && ...))
  auto run(const RunOptions& options, const F& fn, const Args&... args) {
    using Out = decltype(run(fn, args...));
    ValueRef refs[(size_t{0} + ... + detail::run_argument_leaves<Args>()) + 1];
    unsigned count = 0;
    (detail::add_run_argument(args, refs, count), ...);
    const Status allowed = check_run_options(options, Span<const ValueRef>(refs, count));
    if (!allowed.is_ok()) return Out(allowed);
    return run(fn, args...);
  }
  Result<Tensor> reduce(ReduceOp op, const DistributedValue& value, ReduceAxis axis = ReduceAxis::none()) const;
  Result<Tensor> reduce(StringView op, const DistributedValue& value, ReduceAxis axis = ReduceAxis::none()) const;
  // TF's reduce of a nested structure: every leaf reduced as above, the structure kept.
  template <class S>
  Result<S> reduce(ReduceOp op, const PerReplica<S>& value, ReduceAxis axis = ReduceAxis::none()) const {
    return nest::try_build<S>([&](size_t leaf) { return reduce(op, value.leaf(leaf), axis); });
  }
  Result<DistributedValue> broadcast(const DistributedValue& value);
  // contrib's broadcast(tensor, destinations) and TF 2.x's extended.broadcast_to(tensor, destinations):
  // replica 0's value (the value itself if plain) placed as reduce_to places a result: the host (the
  // value as it is), the replicas of a distributed value or variable (a Mirrored copy on each) or one
  // device (a plain copy there). TF's TPUStrategy hands back the tensor itself outside a replica,
  // whatever the destinations, and lets its runtime copy it where it is used; the values are the same.
  Result<DistributedValue> broadcast(const DistributedValue& value, const Destinations& destinations);
  Result<DistributedValue> broadcast_to(const DistributedValue& value, const Destinations& destinations) {
    return broadcast(value, destinations);
  }
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
  // contrib's batch_reduce(aggregation, value_destination_pairs): one reduce_to(aggregation, ...) per
  // pair, in order, as above (ONLY_FIRST_TOWER: replica 0's value of each pair). NONE is refused before
  // any pair is reduced (TF asserts SUM, MEAN or ONLY_FIRST_TOWER, without a text; the runtime's text).
  Status batch_reduce_to(VariableAggregation aggregation, Span<const ValueDestination> pairs,
                         Span<DistributedValue> results);
  // contrib's names for the two: reduce(aggregation, value, destinations), batch_reduce(aggregation, pairs).
  Result<DistributedValue> reduce(VariableAggregation aggregation, const DistributedValue& value,
                                  const Destinations& destinations) {
    return reduce_to(aggregation, value, destinations);
  }
  Status batch_reduce(VariableAggregation aggregation, Span<const ValueDestination> pairs,
                      Span<DistributedValue> results) {
    return batch_reduce_to(aggregation, pairs, results);
  }
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
  // Mirrored variables (mirrored_variable.hpp): a copy of the initial value in every replica's arena.
  Status create_mirrored_variable(const Tensor& initial_value, MirroredVariable& variable);
  // contrib's colocate_vars_with(var): inside this strategy's scope, a scope in which variables are
  // created next to `var` (colocation_scope.hpp: TF's checks and texts; here every variable of the
  // strategy has its copies on the strategy's replicas, so with var's by construction).
  Result<ColocationScope> colocate_vars_with(const MirroredVariable& variable) const;
  // update(var, fn, args): fn on every copy, in place, each on its replica (one launch).
  Status update(MirroredVariable& variable, const UpdateFunction& fn, Span<const DistributedValue> args);
  Status update(MirroredVariable& variable, const UpdateFunction& fn, Span<const ValueRef> args);
  // update(var, fn, args...) with fn a lambda (StrategyReplicaContext&, const Tensor& variable,
  // const Tensor&... args); arguments Tensors (plain), DistributedValues or MirroredVariables (each copy
  // gets the other variables' copy on its replica), and group_false last for TF's group=False. A fn
  // returning Status gives Status; one returning a Tensor (or Result<Tensor>) gives, after every copy
  // is updated, TF's update_regroup of the results: a Mirrored value (the plain value with one
  // replica), or with group_false the UpdateResults, one per copy in replica order.
  template <class F, class... Args>
    requires(!is_same_v<F, UpdateFunction> && (detail::is_update_argument_v<Args> && ...))
  auto update(MirroredVariable& variable, const F& fn, const Args&... args) {
    constexpr unsigned kUngrouped = detail::kGroupFalseCount<Args...>;
    static_assert(detail::group_false_is_last<Args...>(), "update: group_false comes once, after the arguments");
    ValueRef refs[sizeof...(Args) + 1];
    unsigned count = 0;
    (detail::add_update_argument(args, refs, count), ...);
    const Span<const ValueRef> arguments(refs, count);
    if constexpr (!detail::UpdateCallable<F>::kReturnsValue) return update(variable, update_function_of(fn), arguments);
    else if constexpr (kUngrouped == 0) return update_grouped(variable, update_body_of(fn), arguments);
    else return update_ungrouped(variable, update_body_of(fn), arguments);
  }
  // contrib's update_non_slot(colocate_with, fn, args...): fn(args...) once, here in the program (the
  // host, where TF runs it), in cross-replica context; colocate_with (non_slot_devices()) is accepted
  // and not otherwise used, as in TF. fn takes Tensors and returns Status, a Tensor or a
  // Result<Tensor>: update_non_slot returns what fn returns (Status, or Result<Tensor>), with
  // group_false last its result wrapped as UpdateResults of one value (TF's [result]).
  template <class F, class... Args>
    requires((is_same_v<remove_cvref_t<Args>, Tensor> || is_same_v<remove_cvref_t<Args>, GroupFalse>) && ...)
  auto update_non_slot(const DeviceName& colocate_with, const F& fn, const Args&... args) const;

  // contrib's call_for_each_tower(fn, args...): run under its older name. worker_device_index: an
  // argument for it giving each replica the index of its worker device (worker_devices()[r]): int32
  // scalars 0..N-1 as a PerReplica value, the plain scalar 0 with one replica.
  template <class F, class... Args>
  auto call_for_each_tower(const F& fn, const Args&... args) {
    return run(fn, args...);
  }
  Result<DistributedValue> worker_device_index() const;
  // contrib's initialize / finalize: a board's TPU system is up once its firmware runs, so initialize
  // returns the topology initialize_tpu_system gives, and finalize has nothing to shut down. r1.13
  // names them experimental_initialize / experimental_finalize.
  Result<Topology> initialize() const { return resolver_.initialize_tpu_system(); }
  Status finalize() const { return Status::ok(); }
  Result<Topology> experimental_initialize() const { return initialize(); }
  Status experimental_finalize() const { return finalize(); }
  // contrib's read_var(v): the variable's value (replica 0's copy) copied into the program's memory.
  Result<Tensor> read_var(const MirroredVariable& variable) const;
  // contrib's value_container(value): a TPU value is its own container, as in TF.
  const DistributedValue& value_container(const DistributedValue& value) const { return value; }
  // contrib's group(value, name): TF's tf.group of the value's components, an op that makes a graph
  // run every replica's part. A board runs eagerly: when run or update returns, every component has
  // been computed, so there is nothing left to run; group checks the value belongs to this strategy's
  // replicas and returns OK. `name` is accepted and unused (TF_BEHAVIOUR.md).
  Status group(const DistributedValue& value, StringView name = {}) const {
    return check_groupable(value, num_replicas_, name);
  }
  Status group(const RunResult& values, StringView name = {}) const {
    for (unsigned k = 0; k < values.size(); ++k) RT_RETURN_IF_ERROR(check_groupable(values[k], num_replicas_, name));
    return Status::ok();
  }
  // contrib's map(map_over, fn, args...): fn(m, args...) for each m of map_over in order, here in the
  // program (TF runs it on the host CPU); fn returns a Tensor or a Result<Tensor>; the results
  // (map_output.hpp) live in the program's memory.
  template <class F, class... Args>
    requires((is_same_v<remove_cvref_t<Args>, Tensor> && ...))
  Result<MapOutput> map(Span<const Tensor> map_over, const F& fn, const Args&... args) const {
    Tensor* results = RT_TRY(allocate_map_results(map_over.size()));
    for (size_t i = 0; i < map_over.size(); ++i) results[i] = RT_TRY(Result<Tensor>(fn(map_over[i], args...)));
    return MapOutput(results, static_cast<unsigned>(map_over.size()));
  }
  // contrib's configure(session_config, cluster_spec, task_type, task_id) (session_config.hpp): as
  // TF's TPUStrategy, sets session_config's isolate_session_state and, in a pod, its cluster_def to
  // the resolver's cluster spec; cluster_spec, task_type and task_id are accepted and ignored, as TF
  // ignores them. A board has no session: nothing reads the SessionConfig (TF_BEHAVIOUR.md).
  Status configure(SessionConfig* session_config = nullptr, const ClusterSpec* cluster_spec = nullptr,
                   StringView task_type = {}, int task_id = -1) const;
  // TF 2.x's extended._update_config_proto(config): configure's changes on a copy.
  Result<SessionConfig> update_config_proto(const SessionConfig& config) const;

  Result<DistributedDataset> experimental_distribute_dataset(const Dataset& dataset) const;
  // fn: a lambda (const InputContext&) -> Result<Dataset>, called once before this returns.
  Result<DistributedDataset> distribute_datasets_from_function(const DatasetFunction& fn) const;
  // The same with TF's `options` (input_options.hpp: PER_REPLICA refused with TF's texts).
  Result<DistributedDataset> experimental_distribute_dataset(const Dataset& dataset, const InputOptions& options) const {
    RT_RETURN_IF_ERROR(check_distribute_dataset_options(options));
    return experimental_distribute_dataset(dataset);
  }
  Result<DistributedDataset> distribute_datasets_from_function(const DatasetFunction& fn,
                                                               const InputOptions& options) const {
    RT_RETURN_IF_ERROR(check_datasets_from_function_options(options));
    return distribute_datasets_from_function(fn);
  }
  // v1's name for it in r1.15 - r2.3.
  Result<DistributedDataset> experimental_distribute_datasets_from_function(const DatasetFunction& fn,
                                                                            const InputOptions& options = {}) const {
    return distribute_datasets_from_function(fn, options);
  }
  // r1.12's distribute_dataset(dataset_fn): dataset_fn() once; its elements are per-replica batches,
  // consecutive elements to consecutive replicas (what r1.12's run_steps_on_dataset fed each tower),
  // i.e. distribute_datasets_from_function with the context unused.
  Result<DistributedDataset> distribute_dataset(const DatasetFactory& dataset_fn) const;
  // v1's make_dataset_iterator(dataset): an iterator over experimental_distribute_dataset(dataset)
  // (global batches split over the replicas); make_input_fn_iterator(input_fn, replication_mode): over
  // distribute_datasets_from_function(input_fn), PER_WORKER only (else TF's ValueError text). The
  // distributed dataset is kept in pod memory (the calling core's arena), so the iterator stands alone.
  Result<DistributedIterator> make_dataset_iterator(const Dataset& dataset) const;
  Result<DistributedIterator> make_input_fn_iterator(
      const DatasetFunction& input_fn, InputReplicationMode replication_mode = InputReplicationMode::kPerWorker) const;
  // v1's experimental_make_numpy_dataset(numpy_input): a Dataset of numpy_input's rows
  // (from_tensor_slices) over a copy of it in the program's memory, as TF copies the array into a host
  // variable. `session` has no meaning on a board (no session) and is not taken.
  Result<Dataset> experimental_make_numpy_dataset(const Tensor& numpy_input) const;
  // v1's experimental_run(fn, input_iterator): run(fn, input_iterator.get_next()); without an
  // iterator, run(fn).
  template <class F>
  auto experimental_run(const F& fn, DistributedIterator& input_iterator) {
    using Out = decltype(run(fn, DistributedValue()));
    Result<DistributedValue> inputs = input_iterator.get_next();
    if (!inputs) return Out(inputs.status());
    return run(fn, *inputs);
  }
  template <class F>
  auto experimental_run(const F& fn) {
    return run(fn);
  }
  // Runs `iterations` steps (TF's default 1; kStepsPerRun: the strategy's steps_per_run, as TF's
  // Keras and Estimator pass it) of the iterator's dataset in one launch; `context`
  // gets the final step's outputs (and non-tensor outputs) and the iterator moves past the steps run.
  // initial_loop_values: TF's loop-carried initial values (initial_loop_values.hpp): when given,
  // their dtypes must be the last step outputs' (each list in name order), else TF's TypeError.
  Status run_steps_on_dataset(const StepFunction& fn, DistributedIterator& iterator, MultiStepContext& context,
                              unsigned iterations = 1, Span<const NamedTensor> initial_loop_values = {});
  // The same with a lambda (StepContext& step, const S& inputs) -> Status (S: Tensor or a structure).
  template <class F>
    requires(!is_same_v<F, StepFunction>)
  Status run_steps_on_dataset(const F& fn, DistributedIterator& iterator, MultiStepContext& context,
                              unsigned iterations = 1, Span<const NamedTensor> initial_loop_values = {}) {
    return run_steps_on_dataset(step_function_of(callable_name<F>("step_fn"), fn), iterator, context, iterations, initial_loop_values);
  }

 private:
  TPUStrategy() = default;
  // One replicate launch of `body` (merge_call enabled); `result` points at the replicas' outputs.
  Status launch(const StrategyFunction& body, Span<const ValueRef> args, const ReplicateResult** result);
  // An error while a replica of an earlier launch (one that timed out) still runs: the launch state
  // it reads is static, so a caller checks this before it writes any of it.
  Status require_idle_replicas() const;
  Status check_arguments(Span<const ValueRef> args) const;
  // A cross-replica result where `destinations` says: as it is (the host), mirrored on the replicas,
  // or copied to one core.
  Result<DistributedValue> place(const DistributedValue& value, const Destinations& destinations);
  // update's launch; `result` points at the replicas' outputs (fn's results).
  Status update_launch(MirroredVariable& variable, const UpdateBody& body, Span<const ValueRef> args,
                       const ReplicateResult** result);
  Result<DistributedValue> update_grouped(MirroredVariable& variable, const UpdateBody& body, Span<const ValueRef> args);
  Result<UpdateResults> update_ungrouped(MirroredVariable& variable, const UpdateBody& body, Span<const ValueRef> args);

  TPUClusterResolver resolver_;
  StrategyOptions options_;
  unsigned num_replicas_ = 1;
  uint64_t launches_ = 0;
};


// TF's _require_cross_replica_or_default_context: an error inside a strategy replica function.
Status require_cross_replica_context();

template <class F, class... Args>
  requires((is_same_v<remove_cvref_t<Args>, Tensor> || is_same_v<remove_cvref_t<Args>, GroupFalse>) && ...)
auto TPUStrategy::update_non_slot(const DeviceName& colocate_with, const F& fn, const Args&... args) const {
  (void)colocate_with;  // TF: where the non-slot variables live (the host); fn runs here, on the host
  static_assert(detail::group_false_is_last<Args...>(), "update_non_slot: group_false comes once, after the arguments");
  using Call = detail::NonSlotCallable<F>;
  using Out = typename Call::template Returned<detail::kGroupFalseCount<Args...> != 0>;
  const Status context = require_cross_replica_context();
  if (!context.is_ok()) return Out(context);
  const Tensor* tensors[sizeof...(Args) + 1] = {};
  unsigned count = 0;
  (detail::add_non_slot_argument(args, tensors, count), ...);
  return Call::template call<detail::kGroupFalseCount<Args...> != 0>(fn, Span<const Tensor* const>(tensors, count));
}

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

#include "tpu_extended.hpp"  // strategy.extended(): needs TPUStrategy complete
