// The elements of issue 23's table that were missing or partial (TF_BEHAVIOUR.md sections 1, 2, 5, 6
// and 8), each against values written out by hand for N replicas:
//   - contrib batch_reduce(aggregation, pairs): a_r = r + 1 to the host, b_r = [r, 2r] to a variable's
//     devices: SUM -> N(N+1)/2 plain and [N(N-1)/2, N(N-1)] mirrored; ONLY_FIRST_TOWER -> 1 and [0, 0];
//     NONE refused; contrib reduce(aggregation, value, destinations);
//   - broadcast(t, destinations): the host gets t itself, a variable's devices a Mirrored copy of
//     [5, 6] each, one core a plain copy in its arena; a PerReplica value: replica 0's;
//   - the r1.13 / v1 names: num_towers = N; experimental_initialize gives the board's topology (its
//     TopologyProto bytes); experimental_run over make_dataset_iterator of rows i (batches of N): step
//     s, replica r -> 2(sN + r), then End of sequence, initialize() starts again; make_input_fn_iterator,
//     distribute_dataset and experimental_distribute_datasets_from_function over batches of one row:
//     step s, replica r gets row sN + r; PER_REPLICA refused; experimental_make_numpy_dataset copies;
//   - InputOptions (PER_REPLICA, place_dataset_on_device: TF's texts; prefetch_to_device: same values)
//     and RunOptions (replica r's vector of r + 1 ones sums to r + 1; with dynamic batch size off,
//     different shapes are refused);
//   - replicate's xla_options and name, cross_replica_sum's name: reduce_sum(x + 1) of x_r = [1..r+1]
//     padded to L = max(N, 2) is (r+1)(r+4)/2 with the dynamic padder, plus the L - r - 1 padded ones
//     without it; MPMD partitioning of two-core replicas refused; cross_replica_sum(r + 1) = N(N+1)/2.
#include "runtime/ops/elementwise.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/replicate/cross_replica_ops.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::StatusCode;
using rt::tpu::Dataset;
using rt::tpu::Destinations;
using rt::tpu::DistributedIterator;
using rt::tpu::InputContext;
using rt::tpu::MirroredVariable;
using rt::tpu::VariableAggregation;

Result<Tensor> f32_pair(float a, float b) {
  const int64_t two[] = {2};
  return f32_tensor(rt::hbm(), two, {a, b});
}

// Replica r's value fill(r), as a PerReplica (the plain value with one replica).
template <class Fill>
Result<DistributedValue> per_replica(unsigned n, const Fill& fill) {
  Tensor values[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < n; ++r) values[r] = RT_TRY(fill(static_cast<float>(r)));
  return DistributedValue::per_replica(rt::Span<const Tensor>(values, n));
}

Result<DistributedValue> replica_numbers(unsigned n) {
  return per_replica(n, [](float r) { return f32_scalar(rt::hbm(), r + 1); });
}

// A value with one component per replica, Mirrored when there are several, each holding `expected`.
Status expect_mirrored(const DistributedValue& value, unsigned n, std::initializer_list<float> expected,
                       const char* what) {
  if (value.num_components() != n || (n > 1 && value.kind() != rt::tpu::ValueKind::kMirrored))
    return rt::internal_error("{}: a {} with {} components, expected {} mirrored copies", what,
                              rt::tpu::value_kind_name(value.kind()), value.num_components(), n);
  for (unsigned r = 0; r < n; ++r) RT_RETURN_IF_ERROR(expect_f32(value.component(r), expected, what));
  return Status::ok();
}

// ---- batch_reduce, broadcast with destinations ----

Status batch_reduce_cases(TPUStrategy& strategy, unsigned n) {
  MirroredVariable variable;
  RT_RETURN_IF_ERROR(strategy.create_mirrored_variable(RT_TRY(f32_pair(0, 0)), variable));
  const DistributedValue a = RT_TRY(replica_numbers(n));
  const DistributedValue b = RT_TRY(per_replica(n, [](float r) { return f32_pair(r, 2 * r); }));
  const rt::tpu::ValueDestination pairs[] = {{a, Destinations::host()},
                                             {b, Destinations::devices_of(variable.copies)}};
  DistributedValue results[2];
  RT_RETURN_IF_ERROR(strategy.batch_reduce(VariableAggregation::kSum, pairs, results));
  const float sum = static_cast<float>(n * (n + 1) / 2), pair_sum = static_cast<float>(n * (n - 1) / 2);
  if (results[0].is_distributed()) return rt::internal_error("batch_reduce to the host: a distributed value");
  RT_RETURN_IF_ERROR(expect_f32(results[0].component(0), {sum}, "batch_reduce SUM of r + 1 to the host"));
  RT_RETURN_IF_ERROR(expect_mirrored(results[1], n, {pair_sum, 2 * pair_sum}, "batch_reduce SUM to the variable"));
  RT_RETURN_IF_ERROR(strategy.batch_reduce_to(VariableAggregation::kOnlyFirstReplica, pairs, results));
  RT_RETURN_IF_ERROR(expect_f32(results[0].component(0), {1}, "batch_reduce ONLY_FIRST_TOWER to the host"));
  RT_RETURN_IF_ERROR(expect_mirrored(results[1], n, {0, 0}, "batch_reduce ONLY_FIRST_TOWER to the variable"));
  RT_RETURN_IF_ERROR(expect_error(strategy.batch_reduce(VariableAggregation::kNone, pairs, results),
                                  StatusCode::kInvalidArgument,
                                  "batch_reduce: aggregation VariableAggregation.NONE is not SUM, MEAN or "
                                  "ONLY_FIRST_TOWER",
                                  "batch_reduce NONE"));
  const DistributedValue first = RT_TRY(strategy.reduce(VariableAggregation::kOnlyFirstReplica, b, Destinations::host()));
  return expect_f32(first.component(0), {0, 0}, "contrib reduce(ONLY_FIRST_TOWER, b)");
}

Status broadcast_cases(TPUStrategy& strategy, unsigned n) {
  MirroredVariable variable;
  RT_RETURN_IF_ERROR(strategy.create_mirrored_variable(RT_TRY(f32_pair(0, 0)), variable));
  const Tensor t = RT_TRY(f32_pair(5, 6));
  const DistributedValue on_host = RT_TRY(strategy.broadcast(DistributedValue::plain(t), Destinations::host()));
  if (on_host.is_distributed() || on_host.component(0).data != t.data)
    return rt::internal_error("broadcast to the host: not the tensor itself");
  const DistributedValue mirrored = RT_TRY(strategy.broadcast(DistributedValue::plain(t), Destinations::devices_of(variable.copies)));
  RT_RETURN_IF_ERROR(expect_mirrored(mirrored, n, {5, 6}, "broadcast to the variable's devices"));
  for (unsigned r = 0; r < n; ++r)
    if (mirrored.component(r).data == t.data) return rt::internal_error("broadcast: copy {} is the tensor itself", r);
  rt::tpu::DeviceName last;
  rt::format_to(last, "/device:TPU:{}", n - 1);
  const size_t used = rt::hbm_of(n - 1).used();
  const DistributedValue on_core = RT_TRY(strategy.broadcast_to(DistributedValue::plain(t), Destinations::device(last.view())));
  if (on_core.is_distributed() || (n > 1 && rt::hbm_of(n - 1).used() <= used))
    return rt::internal_error("broadcast_to {}: not a copy in core {}'s arena", last.view(), n - 1);
  RT_RETURN_IF_ERROR(expect_f32(on_core.component(0), {5, 6}, "broadcast_to one core"));
  const DistributedValue first = RT_TRY(strategy.broadcast(RT_TRY(replica_numbers(n)), Destinations::host()));
  return expect_f32(first.component(0), {1}, "broadcast of a PerReplica value: replica 0's");
}

// ---- the r1.13 / v1 names ----

// [rows, 1] with row i = [i].
Result<Tensor> counting_column(int64_t rows) {
  const int64_t shape[] = {rows, 1};
  const Tensor column = RT_TRY(rt::hbm().allocate_tensor(rt::DType::kF32, RT_TRY(rt::Shape::make(shape)), "rows"));
  for (int64_t i = 0; i < rows; ++i) reinterpret_cast<float*>(column.data)[i] = static_cast<float>(i);
  return column;
}

// One experimental_run of x * 2 over the iterator: replica r must get 2 * (base + r).
Status expect_doubled_step(TPUStrategy& strategy, DistributedIterator& iterator, unsigned n, unsigned base) {
  auto doubled = [](StrategyReplicaContext& context, const Tensor& x) { return rt::mul(context.arena(), x, 2.0f); };
  const rt::tpu::RunResult result = RT_TRY(strategy.experimental_run(doubled, iterator));
  RT_RETURN_IF_ERROR(expect_regrouped(result[0], n, "experimental_run's output"));
  for (unsigned r = 0; r < n; ++r)
    RT_RETURN_IF_ERROR(expect_f32(result[0].component(r), {2.0f * static_cast<float>(base + r)}, "x * 2 of a step"));
  return Status::ok();
}

Status iterator_cases(TPUStrategy& strategy, unsigned n) {
  const Dataset rows = RT_TRY(Dataset::from_tensor_slices(RT_TRY(counting_column(2 * n))));
  DistributedIterator global = RT_TRY(strategy.make_dataset_iterator(RT_TRY(rows.batch(n))));
  RT_RETURN_IF_ERROR(expect_doubled_step(strategy, global, n, 0));
  RT_RETURN_IF_ERROR(expect_doubled_step(strategy, global, n, n));
  auto doubled = [](StrategyReplicaContext& context, const Tensor& x) { return rt::mul(context.arena(), x, 2.0f); };
  RT_RETURN_IF_ERROR(expect_error(strategy.experimental_run(doubled, global).status(), StatusCode::kOutOfRange,
                                  "End of sequence", "experimental_run past the end"));
  RT_RETURN_IF_ERROR(global.initialize());
  RT_RETURN_IF_ERROR(expect_doubled_step(strategy, global, n, 0));
  // Per-replica batches of one row: step s, replica r gets row sN + r.
  auto input_fn = [&rows](const InputContext&) { return rows.batch(1); };
  DistributedIterator per_replica_rows = RT_TRY(strategy.make_input_fn_iterator(input_fn));
  RT_RETURN_IF_ERROR(expect_doubled_step(strategy, per_replica_rows, n, 0));
  RT_RETURN_IF_ERROR(expect_doubled_step(strategy, per_replica_rows, n, n));
  RT_RETURN_IF_ERROR(expect_error(
      strategy.make_input_fn_iterator(input_fn, rt::tpu::InputReplicationMode::kPerReplica).status(),
      StatusCode::kInvalidArgument, "Input replication mode not supported: <InputReplicationMode.PER_REPLICA: 'PER_REPLICA'>",
      "make_input_fn_iterator PER_REPLICA"));
  const rt::tpu::DistributedDataset r112 = RT_TRY(strategy.distribute_dataset([&rows] { return rows.batch(1); }));
  DistributedIterator r112_iterator(r112);
  RT_RETURN_IF_ERROR(expect_doubled_step(strategy, r112_iterator, n, 0));
  const rt::tpu::DistributedDataset old_v1 = RT_TRY(strategy.experimental_distribute_datasets_from_function(input_fn));
  DistributedIterator old_v1_iterator(old_v1);
  RT_RETURN_IF_ERROR(old_v1_iterator.advance(1));
  return expect_doubled_step(strategy, old_v1_iterator, n, n);
}

Status name_cases(TPUStrategy& strategy, unsigned n) {
  if (strategy.num_towers() != n) return rt::internal_error("num_towers {} on {} cores", strategy.num_towers(), n);
  const rt::tpu::TopologyProtoBytes mine = RT_TRY(strategy.experimental_initialize()).serialized();
  const rt::tpu::TopologyProtoBytes board = RT_TRY(rt::tpu::Topology::for_cores(static_cast<int>(n))).serialized();
  bool same = mine.size == board.size;
  for (size_t i = 0; same && i < mine.size; ++i) same = mine.data[i] == board.data[i];
  if (!same) return rt::internal_error("experimental_initialize: not the board's topology");
  RT_RETURN_IF_ERROR(strategy.experimental_finalize());
  auto replica_id = [](StrategyReplicaContext& context) {
    return f32_scalar(context.arena(), static_cast<float>(context.replica_id_in_sync_group()));
  };
  const rt::tpu::RunResult ids = RT_TRY(strategy.experimental_run(replica_id));
  for (unsigned r = 0; r < n; ++r)
    RT_RETURN_IF_ERROR(expect_f32(ids[0].component(r), {static_cast<float>(r)}, "experimental_run without input"));
  const int64_t three_by_two[] = {3, 2};
  const Tensor array = RT_TRY(f32_tensor(rt::hbm(), three_by_two, {1, 2, 3, 4, 5, 6}));
  const Dataset numpy = RT_TRY(strategy.experimental_make_numpy_dataset(array));
  reinterpret_cast<float*>(array.data)[2] = 30;  // the dataset holds a copy
  if (numpy.cardinality() != 3) return rt::internal_error("numpy dataset of {} elements", numpy.cardinality());
  RT_RETURN_IF_ERROR(expect_f32(RT_TRY(numpy.element(1)), {3, 4}, "experimental_make_numpy_dataset's element 1"));
  return iterator_cases(strategy, n);
}

// ---- InputOptions, RunOptions ----

Status input_option_cases(TPUStrategy& strategy, unsigned n) {
  const Dataset rows = RT_TRY(Dataset::from_tensor_slices(RT_TRY(counting_column(2 * n))));
  const Dataset batches = RT_TRY(rows.batch(n));
  const rt::tpu::InputOptions per_replica{.experimental_replication_mode = rt::tpu::InputReplicationMode::kPerReplica};
  RT_RETURN_IF_ERROR(expect_error(strategy.experimental_distribute_dataset(batches, per_replica).status(),
                                  StatusCode::kUnimplemented,
                                  "InputReplicationMode.PER_REPLICA is only supported in "
                                  "`experimental_distribute_datasets_from_function`.",
                                  "experimental_distribute_dataset PER_REPLICA"));
  auto input_fn = [&rows](const InputContext&) { return rows.batch(1); };
  RT_RETURN_IF_ERROR(expect_error(strategy.distribute_datasets_from_function(input_fn, per_replica).status(),
                                  StatusCode::kUnimplemented,
                                  "InputReplicationMode.PER_REPLICA is only supported in  "
                                  "`experimental_distribute_datasets_from_function` of tf.distribute.MirroredStrategy",
                                  "distribute_datasets_from_function PER_REPLICA"));
  const rt::tpu::InputOptions on_device{.experimental_place_dataset_on_device = true};
  RT_RETURN_IF_ERROR(expect_error(strategy.distribute_datasets_from_function(input_fn, on_device).status(),
                                  StatusCode::kInvalidArgument,
                                  "When `experimental_place_dataset_on_device` is set for dataset placement, you must "
                                  "also specify `PER_REPLICA` for the replication mode",
                                  "place_dataset_on_device with PER_WORKER"));
  const rt::tpu::DistributedDataset host_side =
      RT_TRY(strategy.experimental_distribute_dataset(batches, {.experimental_prefetch_to_device = false}));
  DistributedIterator iterator(host_side);
  return expect_doubled_step(strategy, iterator, n, 0);
}

Status run_option_cases(TPUStrategy& strategy, unsigned n) {
  const DistributedValue ragged = RT_TRY(per_replica(n, [](float r) -> Result<Tensor> {
    const int64_t size[] = {static_cast<int64_t>(r) + 1};
    const Tensor ones = RT_TRY(rt::hbm().allocate_tensor(rt::DType::kF32, RT_TRY(rt::Shape::make(size)), "ones"));
    for (int64_t i = 0; i < size[0]; ++i) reinterpret_cast<float*>(ones.data)[i] = 1;
    return ones;
  }));
  auto total = [](StrategyReplicaContext& context, const Tensor& x) { return sum_rows(context.arena(), x); };
  const rt::tpu::RunOptions bucketized{.experimental_bucketizing_dynamic_shape = true};
  const rt::tpu::RunResult sums = RT_TRY(strategy.run(bucketized, total, ragged));
  for (unsigned r = 0; r < n; ++r)
    RT_RETURN_IF_ERROR(expect_f32(sums[0].component(r), {static_cast<float>(r + 1)}, "run with RunOptions"));
  const rt::tpu::RunOptions static_only{.experimental_enable_dynamic_batch_size = false};
  if (n == 1) return strategy.run(static_only, total, ragged).status();
  return expect_error(strategy.run(static_only, total, ragged).status(), StatusCode::kInvalidArgument,
                      "run's argument 0: replica 1 has a float32 value of shape [2], replica 0 a float32 value of "
                      "shape [1]; RunOptions(experimental_enable_dynamic_batch_size=False) allows only static shape "
                      "inputs",
                      "run with dynamic batch size off");
}

// ---- replicate's xla_options and name, cross_replica_sum's name ----

Status padded_sum_case(unsigned n, bool dynamic_padder) {
  Tensor xs[rt::tpu::kMaxReplicas];
  rt::tpu::ReplicaArgs rows[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < n; ++r) {
    const int64_t size[] = {static_cast<int64_t>(r) + 1};
    xs[r] = RT_TRY(rt::hbm().allocate_tensor(rt::DType::kF32, RT_TRY(rt::Shape::make(size)), "x_r"));
    for (unsigned i = 0; i <= r; ++i) reinterpret_cast<float*>(xs[r].data)[i] = static_cast<float>(i + 1);
    rows[r] = rt::tpu::ReplicaArgs(&xs[r], 1);
  }
  const int64_t unknown[] = {rt::tpu::kUnknownSize};
  const rt::tpu::MaximumShape maximum = rt::tpu::MaximumShape::of(unknown);
  rt::tpu::ReplicateOptions options;
  options.maximum_shapes = rt::Span<const rt::tpu::MaximumShape>(&maximum, 1);
  options.xla_options.enable_xla_dynamic_padder = dynamic_padder;
  options.name = "padded_sum";
  auto computation = [](rt::tpu::ReplicaContext& replica, const Tensor& x) -> Result<Tensor> {
    return sum_rows(replica.arena(), RT_TRY(rt::add(replica.arena(), x, 1.0f)));
  };
  const rt::tpu::Replicated out =
      RT_TRY(rt::tpu::replicate(computation, rt::Span<const rt::tpu::ReplicaArgs>(rows, n), options));
  const unsigned padded_length = n > 2 ? n : 2;
  for (unsigned r = 0; r < n; ++r) {
    const unsigned padding = (n > 1 && !dynamic_padder) ? padded_length - r - 1 : 0;
    const float expected = static_cast<float>((r + 1) * (r + 4) / 2 + padding);
    RT_RETURN_IF_ERROR(expect_f32(out[r][0], {expected}, "reduce_sum(x + 1) of a padded x"));
  }
  return Status::ok();
}

Status replicate_option_cases(unsigned n) {
  RT_RETURN_IF_ERROR(padded_sum_case(n, true));
  RT_RETURN_IF_ERROR(padded_sum_case(n, false));
  auto summed = [](rt::tpu::ReplicaContext& replica) -> Result<Tensor> {
    const Tensor mine = RT_TRY(f32_scalar(replica.arena(), static_cast<float>(rt::tpu::replica_id() + 1)));
    return rt::tpu::cross_replica_sum(mine, {}, "summed");
  };
  Tensor none[1];
  rt::tpu::ReplicaArgs no_inputs[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < n; ++r) no_inputs[r] = rt::tpu::ReplicaArgs(none, 0);
  rt::tpu::ReplicateOptions mpmd;
  mpmd.xla_options.use_spmd_for_xla_partitioning = false;  // one core per replica: nothing to partition
  const rt::tpu::Replicated sums =
      RT_TRY(rt::tpu::replicate(summed, rt::Span<const rt::tpu::ReplicaArgs>(no_inputs, n), mpmd));
  for (unsigned r = 0; r < n; ++r)
    RT_RETURN_IF_ERROR(expect_f32(sums[r][0], {static_cast<float>(n * (n + 1) / 2)}, "cross_replica_sum(r + 1)"));
  if (n % 2 != 0) return Status::ok();
  const rt::tpu::Topology topology = RT_TRY(rt::tpu::Topology::for_cores(static_cast<int>(n)));
  const int32_t two_cores[] = {1, 1, 1, 2};
  const rt::tpu::DeviceAssignment pairs =
      RT_TRY(rt::tpu::DeviceAssignment::build(topology, two_cores, {}, static_cast<int>(n / 2)));
  mpmd.device_assignment = &pairs;
  return expect_error(rt::tpu::replicate(summed, rt::Span<const rt::tpu::ReplicaArgs>(no_inputs, n / 2), mpmd).status(),
                      StatusCode::kUnimplemented,
                      "replicate: xla_options.use_spmd_for_xla_partitioning=False asks for XLA's MPMD partitioner, "
                      "which the runtime does not have: each replica's 2 logical cores all run the computation (SPMD "
                      "partitioning, use_spmd_for_xla_partitioning=True)",
                      "MPMD partitioning of two-core replicas");
}

}  // namespace

// TF 2.x's ReplicaContext.strategy and .devices (replica r's worker device, "/job:localhost/replica:0/
// task:0/device:TPU:r" on a board), and the free initialize / shutdown functions: initialize_system's
// bytes are the board's topology serialized, and they parse back to the same mesh.
Status context_and_system_cases(TPUStrategy& strategy, unsigned n) {
  const rt::tpu::RunResult same = RT_TRY(strategy.run([&strategy](StrategyReplicaContext& context) -> Result<Tensor> {
    const rt::tpu::WorkerDevices devices = context.devices();
    rt::FixedString<96> expected;
    rt::format_to(expected, "/job:localhost/replica:0/task:0/device:TPU:{}", context.replica_id_in_sync_group());
    const bool ok = &context.strategy() == &strategy && devices.count == 1 && devices.names[0].view() == expected.view();
    return rt::scalar(context.arena(), static_cast<int32_t>(ok ? 1 : 0));
  }));
  for (unsigned r = 0; r < n; ++r)
    if (same[0].component(r).scalar<int32_t>() != 1)
      return rt::internal_error("replica {}: ReplicaContext.strategy or .devices is not the running strategy's", r);
  const rt::tpu::TPUClusterResolver& resolver = strategy.cluster_resolver();
  const rt::tpu::Topology topology = RT_TRY(rt::tpu::initialize_tpu_system(resolver));
  const rt::tpu::TopologyProtoBytes bytes = RT_TRY(rt::tpu::initialize_system(resolver));
  const rt::tpu::Topology parsed = RT_TRY(rt::tpu::Topology::from_serialized(bytes.span()));
  if (parsed.num_tasks() != topology.num_tasks() || parsed.num_devices() != topology.num_devices() ||
      parsed.num_devices() != static_cast<int>(n))
    return rt::internal_error("initialize_system's topology has {} devices, expected {}", parsed.num_devices(), n);
  RT_RETURN_IF_ERROR(rt::tpu::shutdown_tpu_system(resolver));
  return rt::tpu::shutdown_system(resolver);
}

Status run_names_cases(unsigned cores) {
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board());
  RT_RETURN_IF_ERROR(batch_reduce_cases(strategy, cores));
  RT_RETURN_IF_ERROR(broadcast_cases(strategy, cores));
  RT_RETURN_IF_ERROR(name_cases(strategy, cores));
  RT_RETURN_IF_ERROR(input_option_cases(strategy, cores));
  RT_RETURN_IF_ERROR(run_option_cases(strategy, cores));
  RT_RETURN_IF_ERROR(context_and_system_cases(strategy, cores));
  return replicate_option_cases(cores);
}

}  // namespace strategy_test
