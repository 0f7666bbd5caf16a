// tpu.replicate: checks, padding plan, placement, then one launch per logical core of each replica and
// their collection.
#include "runtime/tpu/replicate/replicate.hpp"

#include "runtime/tensor/hbm.hpp"

#include "runtime/tpu/replicate/current_replica.hpp"
#include "runtime/tpu/replicate/executor.hpp"
#include "runtime/mailbox/mailbox.hpp"
#include "hal/core.hpp"
#include "runtime/tpu/mesh/pod_membership.hpp"
#include "pod_bridge.hpp"
#include "pod_outputs.hpp"
#include "runtime/tpu/mesh/pod_placement.hpp"
#include "runtime/tpu/replicate/replicate_inputs.hpp"

namespace rt::tpu {
namespace {

Status check_caller(unsigned num_replicas) {
  if (current_replica_context() != nullptr)
    return invalid_argument("TPU computations cannot be nested on op (name: \"TPUReplicateMetadata\" op: "
                            "\"TPUReplicateMetadata\" attr {{ key: \"num_replicas\" value {{ i: {} }} }})",
                            num_replicas);
  if (hal::core_id() != 0)
    return Status::error(StatusCode::kFailedPrecondition,
                         "replicate must be called by the program on core 0 (rt::tpu::run_program); it was "
                         "called on core {}",
                         hal::core_id());
  return Status::ok();
}

Status check_infeed(const ReplicateOptions& options) {
  if (options.infeed_queue != nullptr && !options.maximum_shapes.empty())
    return invalid_argument("Dynamic input shapes are not supported with infeed queues");
  return Status::ok();
}

// Model parallelism with an infeed queue would need one queue per logical core (TF shards infeed
// tuples over them); not built yet.
Status check_infeed_placement(const ReplicateOptions& options, const PodPlacement& placement) {
  if (options.infeed_queue == nullptr || placement.cores_per_replica == 1) return Status::ok();
  return Status::error(StatusCode::kUnimplemented,
                       "replicate: infeed with model parallelism is not implemented yet (the device assignment gives "
                       "each replica {} cores)",
                       placement.cores_per_replica);
}

// One launch per logical core of each replica: task t is logical core t % cores_per_replica of
// replica t / cores_per_replica.
struct Task {
  unsigned replica;
  unsigned logical_core;
  unsigned core;
};

Task task_of(const PodPlacement& placement, unsigned task) {
  const unsigned replica = task / placement.cores_per_replica, logical_core = task % placement.cores_per_replica;
  return Task{replica, logical_core, placement.local_core_of(replica, logical_core)};
}

// Whether launch task `task` runs on this board (in a pod, the other boards launch theirs).
bool is_local(const PodPlacement& placement, unsigned task) {
  return placement.is_local(task / placement.cores_per_replica, task % placement.cores_per_replica);
}

void fill_launch(Launch& launch, const Computation& computation, const PodPlacement& placement, const Task& task,
                 ReplicaArgs args, const PaddingPlan& plan, const ReplicateOptions& options) {
  launch.computation = computation;
  launch.placement = ReplicaPlacement{task.replica, placement.num_replicas, task.core, task.logical_core,
                                      placement.cores_per_replica};
  launch.replicas = placement.replicas_on_logical_core(task.logical_core);
  if (placement.cores_per_board != 0) launch.replicas.cross_board = exchange_across_boards;  // pod_bridge.hpp
  launch.logical_cores = placement.logical_cores_of_replica(task.replica);
  launch.collective_timeout_ns = options.collective_timeout_ns;
  launch.num_inputs = static_cast<unsigned>(args.size());
  for (unsigned k = 0; k < launch.num_inputs; ++k) {
    launch.inputs[k] = args[k];
    launch.padding[k] = plan.inputs[k];
  }
  launch.has_infeed = options.infeed_queue != nullptr;
  if (launch.has_infeed) launch.infeed = *options.infeed_queue;
}

// A replica's outputs are its logical core 0's; the other logical cores' values are dropped.
ReplicaOutputs& outputs_of(const Task& task, ReplicateResult& result, ReplicaOutputs& dropped) {
  return task.logical_core == 0 ? result.replicas[task.replica] : dropped;
}

// The lowest failing task's status, preferring any other error to a timeout and a timeout to a
// cancellation: the cause, not the peers that then stopped waiting for it in a collective (a replica
// that never arrives is a timeout, and the peers it kept waiting are cancelled in turn).
struct FirstErrors {
  Status cause, timeout, cancelled;
  void add(const Status& status) {
    Status& tier = status.code() == StatusCode::kDeadlineExceeded ? timeout
                   : status.code() == StatusCode::kCancelled      ? cancelled
                                                                  : cause;
    if (tier.is_ok() && !status.is_ok()) tier = status;
  }
  Status result() const { return !cause.is_ok() ? cause : !timeout.is_ok() ? timeout : cancelled; }
};

// A launch that failed may have left bytes of its failed collectives in the mailbox rings between
// its cores (exchange.hpp: a mismatch stops reading mid-message). Once every core of it is idle
// they are dropped, so the next launch starts from empty rings; while a replica that timed out still
// runs they stay (the next strategy launch is refused until it ends).
void discard_failed_launch_leftovers(const PodPlacement& placement) {
  unsigned cores[hal::kMaxCores];
  unsigned count = 0;
  for (unsigned t = 0; t < placement.num_tasks(); ++t) {
    if (!is_local(placement, t)) continue;
    const unsigned core = task_of(placement, t).core;
    if (core != 0 && !core_idle(core)) return;  // core 0 runs this
    cores[count++] = core;
  }
  for (unsigned from = 0; from < count; ++from)
    for (unsigned to = 0; to < count; ++to)
      if (from != to) (void)mailbox::ring(cores[from], cores[to]).discard_unread();
}

// Every worker is acquired before any launch is published, so a core that is not ready fails the
// call before any replica waits for it in a collective. In a pod, only this board's launches.
Status run_replicas(const Computation& computation, Span<const ReplicaArgs> inputs, const PodPlacement& placement,
                    const ReplicateOptions& options, ReplicateResult& result) {
  Launch* launches[kMaxPodDevices] = {};  // by task of the pod (only this board's are set)
  for (unsigned t = 0; t < placement.num_tasks(); ++t) {
    if (!is_local(placement, t)) continue;
    Result<Launch*> launch = acquire_launch(task_of(placement, t).core, options.timeout_ns);
    if (!launch) return launch.status();
    launches[t] = *launch;
  }
  static uint64_t launches_made = 0;  // core 0 only: numbers the calls for cancellation
  ++launches_made;
  for (unsigned t = 0; t < placement.num_tasks(); ++t) {
    if (!is_local(placement, t)) continue;
    const Task task = task_of(placement, t);
    fill_launch(*launches[t], computation, placement, task, inputs[task.replica], result.padding, options);
    launches[t]->id = launches_made;
    if (task.core != 0) publish_launch(task.core);
  }
  static ReplicaOutputs dropped;  // core 0 only (replicate never nests); too large for its stack
  unsigned local_task = placement.num_tasks();
  Status local_status;
  for (unsigned t = 0; t < placement.num_tasks(); ++t)
    if (is_local(placement, t) && task_of(placement, t).core == 0) {
      local_task = t;
      local_status = run_launch(*launches[t], outputs_of(task_of(placement, t), result, dropped));
    }
  const uint64_t deadline = hal::deadline_after(options.timeout_ns);
  FirstErrors errors;
  for (unsigned t = 0; t < placement.num_tasks(); ++t) {
    if (!is_local(placement, t)) continue;
    const Task task = task_of(placement, t);
    errors.add(t == local_task ? local_status
                               : await_completion(task.core, outputs_of(task, result, dropped), deadline,
                                                  options.timeout_ns));
  }
  if (!errors.result().is_ok()) discard_failed_launch_leftovers(placement);
  return errors.result();
}

const ReplicaArgs kNoInputs[1] = {ReplicaArgs()};

}  // namespace

Status replicate(const Computation& computation, Span<const ReplicaArgs> inputs, const ReplicateOptions& options,
                 ReplicateResult& result) {
  const unsigned num_replicas = static_cast<unsigned>(inputs.size());
  RT_RETURN_IF_ERROR(check_caller(num_replicas));  // before touching `result`: a nested call may share it
  result.num_replicas = 0;
  for (ReplicaOutputs& outputs : result.replicas) outputs.clear();
  const bool has_infeed = options.infeed_queue != nullptr;
  const unsigned infeed_elements = has_infeed ? options.infeed_queue->number_of_tuple_elements : 0;
  RT_RETURN_IF_ERROR(validate_replicate_inputs(computation, inputs, has_infeed, infeed_elements, options.input_names));
  RT_RETURN_IF_ERROR(check_infeed(options));
  Result<PaddingPlan> plan =
      plan_padding(inputs, options.maximum_shapes, options.padding_spec, computation.signature.arg_names);
  if (!plan) return plan.status();
  if (!options.xla_options.enable_xla_dynamic_padder)  // xla_options.hpp: padded inputs without real sizes
    for (InputPadding& input : plan->inputs) input.record_real_sizes = false;
  result.padding = *plan;
  const PodMembership& pod = pod_membership();
  Result<PodPlacement> placement =
      place_computation(num_replicas, options.device_assignment, hal::core_count(), PodShape{pod.task, pod.num_tasks});
  if (!placement) return placement.status();
  RT_RETURN_IF_ERROR(check_xla_options(options.xla_options, placement->cores_per_replica));
  if (has_infeed && !options.infeed_queue->dequeue)
    return Status::error(StatusCode::kUnimplemented,
                         "replicate: the infeed binding has no dequeue function (bind an InfeedQueue's dequeue); "
                         "this call asks for {} infeed tuple elements per replica",
                         infeed_elements);
  RT_RETURN_IF_ERROR(check_infeed_placement(options, *placement));
  result.num_replicas = num_replicas;
  RT_RETURN_IF_ERROR(run_replicas(computation, inputs, *placement, options, result));
  if (!pod.in_pod()) return Status::ok();
  return gather_pod_outputs(*placement, pod.num_tasks, result);  // every board sees every replica's outputs
}

Status replicate(const Computation& computation, const ReplicateOptions& options, ReplicateResult& result) {
  return replicate(computation, Span<const ReplicaArgs>(kNoInputs, 1), options, result);
}

Result<Tensor*> allocate_replica_inputs(size_t count) {
  if (count == 0) return static_cast<Tensor*>(nullptr);
  uint8_t* memory = RT_TRY(hbm().allocate(count * sizeof(Tensor), alignof(Tensor), "replicate's inputs"));
  Tensor* tensors = reinterpret_cast<Tensor*>(memory);
  for (size_t i = 0; i < count; ++i) new (tensors + i) Tensor();
  return tensors;
}

Result<Replicated> replicate(const Computation& computation, Span<const ReplicaArgs> inputs,
                             const ReplicateOptions& options) {
  uint8_t* memory = RT_TRY(hbm().allocate(sizeof(ReplicateResult), alignof(ReplicateResult), "replicate's result"));
  ReplicateResult* result = new (memory) ReplicateResult();
  RT_RETURN_IF_ERROR(replicate(computation, inputs, options, *result));
  return Replicated(result);
}

}  // namespace rt::tpu
