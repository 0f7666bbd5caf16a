// pod: what a board knows of the pod it is part of, printed as TF would show it. Run it on a pod of
// boards (`tpu run --boards 2 --board host --cores 2 pod`) or alone (task 0 of 1). Core 0 prints:
//   POD task T of K                        this board's task (its Open MPI rank)
//   POD resolver task_id T accelerators C  TPUClusterResolver's view
//   POD cluster_spec worker: [a:8470, ...]  its cluster_spec(): every board's address (empty alone)
//   POD mesh [X, Y, Z, C]                  initialize_tpu_system()'s topology: the boards' meshes
//   POD device t d at [x, y, z, c]         stacked along z, one line per device of every task
//   POD replicas N hosts H per-host P      TPUStrategy's num_replicas_in_sync, num_hosts,
//   POD worker r /job:.../device:TPU:d     num_replicas_per_host and worker_devices
//   POD host-cpu t /job:...                get_host_cpu_device(t)
//   POD sums over N replicas on K boards: ...   a replicate over every core of the pod whose
//                                          cross_replica_sum crosses the boards (sums_across_boards),
//                                          every replica's outputs checked on every board
//   POD input: K pipelines for N replicas ...  distribute_datasets_from_function, one pipeline per
//                                          board, steps agreed across the pod, every value checked
//   POD global batches: ...                 experimental_distribute_dataset over the pod's replicas
//   POD steps on dataset: ...               run_steps_on_dataset's last step outputs (per replica and
//                                          summed) of every replica, on every board; then again with
//                                          replicas on the first board only (num_cores), and with
//                                          replicas of 2 logical cores (a device assignment)
//   POD across boards: ... hash H           mean and 16-bit all_reduce, reduce_scatter, all_to_all and
//                                          collective_permute across the boards, every output checked
//                                          against one board's computation (across_boards.hpp)
#include "across_boards.hpp"
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;

Status print_topology(const Topology& topology) {
  const Span<const int32_t> mesh = topology.mesh_shape();
  log_info("POD mesh [{}, {}, {}, {}]", mesh[0], mesh[1], mesh[2], mesh[3]);
  for (int task = 0; task < topology.num_tasks(); ++task)
    for (int device = 0; device < topology.num_tpus_per_task(); ++device) {
      const MeshCoordinates& at = topology.device_coordinates(task, device);
      log_info("POD device {} {} at [{}, {}, {}, {}]", task, device, at[0], at[1], at[2], at[3]);
    }
  return Status::ok();
}

Status print_strategy(const TPUStrategy& strategy) {
  log_info("POD replicas {} hosts {} per-host {}", strategy.num_replicas_in_sync(), strategy.num_hosts(),
           strategy.num_replicas_per_host());
  const WorkerDevices workers = strategy.worker_devices();
  for (unsigned replica = 0; replica < workers.count; ++replica)
    log_info("POD worker {} {}", replica, workers.names[replica].view());
  for (unsigned host = 0; host < strategy.num_hosts(); ++host)
    log_info("POD host-cpu {} {}", host, strategy.get_host_cpu_device(static_cast<int>(host)).view());
  // The contrib names: towers are replicas; worker_device_index gives replica r the index r of its
  // worker device, over the whole pod.
  const DistributedValue index = RT_TRY(strategy.worker_device_index());
  for (unsigned replica = 0; replica < strategy.num_replicas_in_sync(); ++replica)
    if (index.component(replica).scalar<int32_t>() != static_cast<int32_t>(replica))
      return internal_error("worker_device_index of replica {} is {}", replica, index.component(replica).scalar<int32_t>());
  log_info("POD contrib towers-per-host {} between-graph {} worker_device_index 0..{} checked",
           strategy.num_towers_per_host(), strategy.between_graph() ? "true" : "false",
           strategy.num_replicas_in_sync() - 1);
  return Status::ok();
}

// Replica r holds x = (r + 1) * [1, 2, 3, 4]. Over all N replicas of the pod, cross_replica_sum
// gives S * [1, 2, 3, 4] with S = N (N + 1) / 2; over the groups {j, j + C, j + 2C, ...} (one replica
// per board, C cores per board) it gives S_j * [1, 2, 3, 4] with S_j the sum of their r + 1; the
// max of the replica ids is N - 1, as is the last replica's id broadcast; the all_gather of the ids is
// 0 .. N-1; a barrier closes. Every value is exact in float32, so each board checks every replica's
// results against these.
constexpr unsigned kMaxGroupIds = kMaxReplicas;
uint32_t column_groups[kMaxGroupIds];

GroupAssignment board_columns(unsigned boards, unsigned cores) {
  for (unsigned j = 0; j < cores; ++j)
    for (unsigned t = 0; t < boards; ++t) column_groups[j * boards + t] = t * cores + j;
  return GroupAssignment{column_groups, cores, boards};
}

struct Sums {
  GroupAssignment columns;
};
Sums sums;

Result<Tensor> sums_across_boards(ReplicaContext& replica) {
  Arena& arena = replica.arena();
  const float r1 = static_cast<float>(replica.replica_id() + 1);
  const Tensor x = RT_TRY(constant<float>(arena, {4}, {r1, 2 * r1, 3 * r1, 4 * r1}, "x"));
  const Tensor all = RT_TRY(cross_replica_sum(x));
  const Tensor column = RT_TRY(cross_replica_sum(x, sums.columns));
  const Tensor id = RT_TRY(scalar(arena, int32_t(replica.replica_id()), "id"));
  const Tensor top = RT_TRY(replica.all_reduce(ReduceOp::kMax, id));
  const Tensor last = RT_TRY(replica.broadcast(id, replica.num_replicas() - 1));  // the last replica's id
  const Tensor ids = RT_TRY(replica.all_gather(id));                             // every id, in replica order
  RT_RETURN_IF_ERROR(replica.barrier());
  const int64_t size = 10 + replica.num_replicas();
  const Tensor out = RT_TRY(arena.allocate_tensor(DType::kF32, RT_TRY(Shape::make(Span<const int64_t>(&size, 1))), "out"));
  for (unsigned i = 0; i < 4; ++i) {
    out.at<float>(i) = all.at<float>(i);
    out.at<float>(4 + i) = column.at<float>(i);
  }
  out.at<float>(8) = static_cast<float>(top.scalar<int32_t>());
  out.at<float>(9) = static_cast<float>(last.scalar<int32_t>());
  for (unsigned r = 0; r < replica.num_replicas(); ++r) out.at<float>(10 + r) = static_cast<float>(ids.at<int32_t>(r));
  return out;
}

// Runs the sums on every replica of the pod; every board holds every replica's outputs afterwards (as
// TF's single client does) and checks them all.
Status check_sums(const PodMembership& pod, const TPUStrategy& strategy, unsigned cores) {
  const unsigned replicas = strategy.num_replicas_in_sync();
  sums.columns = board_columns(pod.num_tasks, cores);
  ReplicaArgs inputs[kMaxReplicas];
  const Replicated result = RT_TRY(replicate(sums_across_boards, Span<const ReplicaArgs>(inputs, replicas)));
  const float total = static_cast<float>(replicas * (replicas + 1) / 2);
  unsigned checked = 0;
  for (unsigned r = 0; r < replicas; ++r) {
    if (result[r].size() != 1) return internal_error("replica {} has {} outputs on this board, expected 1", r, result[r].size());
    const Tensor& out = result[r][0];
    const unsigned j = r % cores;
    float column = 0;
    for (unsigned t = 0; t < pod.num_tasks; ++t) column += static_cast<float>(t * cores + j + 1);
    for (unsigned i = 0; i < 4; ++i)
      if (out.at<float>(i) != total * float(i + 1) || out.at<float>(4 + i) != column * float(i + 1))
        return internal_error("replica {}: sums {} and {} at {}, expected {} and {}", r, out.at<float>(i),
                              out.at<float>(4 + i), i, total * float(i + 1), column * float(i + 1));
    if (out.at<float>(8) != float(replicas - 1) || out.at<float>(9) != float(replicas - 1))
      return internal_error("replica {}: max of the ids {}, the last replica's broadcast id {}, expected {}", r,
                            out.at<float>(8), out.at<float>(9), replicas - 1);
    for (unsigned q = 0; q < replicas; ++q)
      if (out.at<float>(10 + q) != float(q))
        return internal_error("replica {}: all_gather of the ids has {} at {}", r, out.at<float>(10 + q), q);
    ++checked;
  }
  log_info("POD sums over {} replicas on {} boards: all {}, columns of {}, max id {}, broadcast, all_gather, barrier: "
           "checked on all {} replicas' outputs",
           replicas, pod.num_tasks, total, pod.num_tasks, replicas - 1, checked);
  return Status::ok();
}

// distribute_datasets_from_function: each board is a host with its own input pipeline. Board t's
// pipeline (InputContext: pipeline t of K) holds the rows 1000 t + i, (3 + t) R of them (R = N / K
// replicas per board), so board t alone would have 3 + t steps; the pod agrees on 3. At step s,
// replica r (board r / R, j = r % R there) must get row s R + j of board r / R's pipeline, and every
// board checks every replica's value (the outputs of strategy.run come back to every board).
Status check_per_host_input(TPUStrategy& strategy) {
  const unsigned replicas = strategy.num_replicas_in_sync();
  const DistributedDataset dataset = RT_TRY(strategy.distribute_datasets_from_function([](const InputContext& context) -> Result<Dataset> {
    const unsigned per_host = context.num_replicas_in_sync / context.num_input_pipelines;
    const int64_t rows = int64_t{3 + context.input_pipeline_id} * per_host;
    const Tensor source = RT_TRY(hbm().allocate_tensor(DType::kF32, RT_TRY(Shape::make(Span<const int64_t>(&rows, 1))),
                                                       "this host's rows"));
    for (int64_t i = 0; i < rows; ++i) source.at<float>(i) = static_cast<float>(1000 * context.input_pipeline_id + i);
    return Dataset::from_tensor_slices(source);
  }));
  if (dataset.num_steps() != 3) return internal_error("the pod agreed on {} steps, expected 3", dataset.num_steps());
  const unsigned per_host = replicas / strategy.num_hosts();
  DistributedIterator iterator(dataset);
  for (int64_t step = 0; iterator.has_next(); ++step) {
    const DistributedValue value = RT_TRY(iterator.get_next());
    const RunResult got = RT_TRY(strategy.run([](StrategyReplicaContext&, const Tensor& x) -> Result<Tensor> { return x; },
                                              value));
    for (unsigned r = 0; r < replicas; ++r) {
      const float expected = static_cast<float>(1000 * (r / per_host) + step * per_host + r % per_host);
      if (got[0].component(r).scalar<float>() != expected)
        return internal_error("step {}: replica {} got {}, expected {}", step, r, got[0].component(r).scalar<float>(),
                              expected);
    }
  }
  log_info("POD input: {} pipelines for {} replicas, 3 steps agreed, every value checked", strategy.num_hosts(),
           replicas);
  return Status::ok();
}

// `steps` global batches of `batch` rows: row i holds i (float32), distributed over the strategy's replicas.
Result<DistributedDataset> numbered_global_batches(const TPUStrategy& strategy, int64_t batch, int64_t steps) {
  const int64_t rows = steps * batch;
  const Tensor source = RT_TRY(hbm().allocate_tensor(DType::kF32, RT_TRY(Shape::make(Span<const int64_t>(&rows, 1))),
                                                     "the global batches"));
  for (int64_t i = 0; i < rows; ++i) source.at<float>(i) = static_cast<float>(i);
  return strategy.experimental_distribute_dataset(RT_TRY(RT_TRY(Dataset::from_tensor_slices(source)).batch(batch)));
}

// experimental_distribute_dataset: every board holds the same global batches (the program is the same
// on every board); each batch of B = 2N rows is split over the pod's replicas in replica order, so at
// step s replica r gets rows s B + 2r and s B + 2r + 1, whichever board it runs on. strategy.run
// returns their sum; every board checks every replica's (4 steps).
Status check_global_batches(TPUStrategy& strategy) {
  const unsigned replicas = strategy.num_replicas_in_sync();
  const int64_t batch = 2 * int64_t{replicas};
  const DistributedDataset dataset = RT_TRY(numbered_global_batches(strategy, batch, 4));
  DistributedIterator iterator(dataset);
  for (int64_t step = 0; iterator.has_next(); ++step) {
    const DistributedValue value = RT_TRY(iterator.get_next());
    const RunResult sums = RT_TRY(strategy.run(
        [](StrategyReplicaContext& context, const Tensor& rows_of_replica) -> Result<Tensor> {
          return reduce_sum(context.arena(), rows_of_replica);
        },
        value));
    for (unsigned r = 0; r < replicas; ++r) {
      const float expected = static_cast<float>(2 * (step * batch + 2 * r) + 1);
      if (sums[0].component(r).scalar<float>() != expected)
        return internal_error("global batch {}: replica {} summed {}, expected {}", step, r,
                              sums[0].component(r).scalar<float>(), expected);
    }
  }
  log_info("POD global batches: 4 batches of {} rows split over {} replicas, every slice checked", batch, replicas);
  return Status::ok();
}

// run_steps_on_dataset over the same kind of global batches (B = 2N rows, 4 steps in one launch):
// at the last step (s = 3) replica r sums rows 3B + 2r and 3B + 2r + 1. set_last_step_output keeps
// that sum per replica (a PerReplica of the pod's N replicas, whichever board each runs on) and its
// SUM over the replicas (a plain value: sum over r of 6B + 4r + 1 = N (6B + 1) + 2N(N - 1)).
Status check_steps_on_dataset(TPUStrategy& strategy, StringView how = "") {
  const unsigned replicas = strategy.num_replicas_in_sync();
  const int64_t batch = 2 * int64_t{replicas}, steps = 4;
  const DistributedDataset dataset = RT_TRY(numbered_global_batches(strategy, batch, steps));
  DistributedIterator iterator(dataset);
  static MultiStepContext context;  // large: not on core 0's stack
  RT_RETURN_IF_ERROR(strategy.run_steps_on_dataset(
      [](StepContext& step, const Tensor& rows_of_replica) -> Status {
        // A replica's logical core c (model parallelism) reports its sum + 1000 c: only core 0's counts.
        Arena& arena = step.replica().arena();
        const float marker = 1000.0f * static_cast<float>(step.replica().replica().logical_core());
        const Tensor sum = RT_TRY(add(arena, RT_TRY(reduce_sum(arena, rows_of_replica)), marker));
        RT_RETURN_IF_ERROR(step.set_last_step_output("sum", sum));
        return step.set_last_step_output("total", sum, ReduceOp::kSum);
      },
      iterator, context, static_cast<unsigned>(steps)));
  const DistributedValue sums = RT_TRY(context.last_step_output("sum"));
  if (sums.num_components() != replicas)
    return internal_error("last step's sums: {} components, expected {}", sums.num_components(), replicas);
  for (unsigned r = 0; r < replicas; ++r) {
    const float expected = static_cast<float>(2 * (3 * batch + 2 * r) + 1);
    if (sums.component(r).scalar<float>() != expected)
      return internal_error("last step: replica {} summed {}, expected {}", r, sums.component(r).scalar<float>(), expected);
  }
  const DistributedValue total = RT_TRY(context.last_step_output("total"));
  const float expected_total = static_cast<float>(replicas * (6 * batch + 1) + 2 * replicas * (replicas - 1));
  if (total.is_distributed() || total.component(0).scalar<float>() != expected_total)
    return internal_error("last step's total: {} ({}), expected the plain value {}", total.component(0).scalar<float>(),
                          value_kind_name(total.kind()), expected_total);
  log_info("POD steps on dataset{}: {} steps in one launch, the last step's outputs of {} replicas checked", how, steps,
           replicas);
  return Status::ok();
}

// The same with replicas of 2 logical cores each (a device assignment of computation shape
// [1, 1, 1, 2] over the pod's topology: each replica on 2 cores of one board, N / 2 replicas). Both
// logical cores run every step; the last step's outputs are each replica's logical core 0's (its
// other core's are dropped), on every board. A board of an odd number of cores says it is not run.
Status check_steps_on_dataset_model_parallel(const Topology& topology, int cores) {
  if (cores % 2 != 0) {
    log_info("POD steps on dataset, 2 logical cores per replica: not run on boards of {} core{}", cores,
             cores == 1 ? "" : "s");
    return Status::ok();
  }
  const int32_t pair[] = {1, 1, 1, 2};
  const int replicas = topology.num_tasks() * cores / 2;
  const DeviceAssignment assignment = RT_TRY(DeviceAssignment::build(topology, pair, {}, replicas));
  StrategyOptions options;
  options.device_assignment = &assignment;
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board(options));
  return check_steps_on_dataset(strategy, ", 2 logical cores per replica");
}

Status program() {
  const PodMembership& pod = pod_membership();
  log_info("POD task {} of {}", pod.task, pod.num_tasks);
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board());
  const TPUClusterResolver& resolver = strategy.cluster_resolver();
  log_info("POD resolver task_id {} accelerators {}", resolver.task_id(), resolver.num_accelerators());
  const ClusterSpec cluster = RT_TRY(resolver.cluster_spec());
  FixedString<512> workers;
  for (const FixedString<64>& worker : cluster.task_addresses()) format_to(workers, "{}{}", workers.view().empty() ? "" : ", ", worker.view());
  log_info("POD cluster_spec {}: [{}]", cluster.job(), workers.view());
  const Topology topology = RT_TRY(resolver.initialize_tpu_system());
  RT_RETURN_IF_ERROR(print_topology(topology));
  RT_RETURN_IF_ERROR(print_strategy(strategy));
  RT_RETURN_IF_ERROR(check_sums(pod, strategy, resolver.num_accelerators()));
  RT_RETURN_IF_ERROR(pod_app::check_collectives_across_boards(pod, resolver.num_accelerators()));
  RT_RETURN_IF_ERROR(check_per_host_input(strategy));
  RT_RETURN_IF_ERROR(check_global_batches(strategy));
  RT_RETURN_IF_ERROR(check_steps_on_dataset(strategy));
  // The same on the first board's cores alone (contrib's num_cores): the other boards run no replica,
  // and still learn every replica's last step outputs.
  StrategyOptions first_board;
  first_board.num_cores = resolver.num_accelerators();
  TPUStrategy on_first_board = RT_TRY(TPUStrategy::for_board(first_board));
  RT_RETURN_IF_ERROR(check_steps_on_dataset(on_first_board));
  return check_steps_on_dataset_model_parallel(topology, resolver.num_accelerators());
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] {
    PodMemoryScope memory(context.cores);
    return program();
  });
}

}  // namespace

const firmware::App firmware::kApp = {"pod", "what a board knows of its pod: task, topology, TPUStrategy's hosts and devices",
                                      run};
