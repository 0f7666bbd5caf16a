// pod: what a board knows of the pod it is part of, printed as TF would show it. Run it on a pod of
// boards (`tpu run --boards 2 --board host --cores 2 pod`) or alone (task 0 of 1). Core 0 prints:
//   POD task T of K                        this board's task (its Open MPI rank)
//   POD resolver task_id T accelerators C  TPUClusterResolver's view
//   POD mesh [X, Y, Z, C]                  initialize_tpu_system()'s topology: the boards' meshes
//   POD device t d at [x, y, z, c]         stacked along z, one line per device of every task
//   POD replicas N hosts H per-host P      TPUStrategy's num_replicas_in_sync, num_hosts,
//   POD worker r /job:.../device:TPU:d     num_replicas_per_host and worker_devices
//   POD host-cpu t /job:...                get_host_cpu_device(t)
// In a pod, replicate across the boards is not there yet (issue 22, stage 2): the program checks that
// it says so (UNIMPLEMENTED) instead of running replicas on one board only.
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
  return Status::ok();
}

Result<Tensor> replica_id(ReplicaContext& replica) { return scalar(replica.arena(), int32_t(replica.replica_id()), "id"); }

// A pod's replicate must refuse (not yet across boards); a single board's runs.
Status check_replicate(const PodMembership& pod, const TPUStrategy& strategy) {
  ReplicaArgs inputs[kMaxReplicas];
  const unsigned replicas = strategy.num_replicas_in_sync() <= kMaxReplicas ? strategy.num_replicas_in_sync() : 1;
  const Result<Replicated> ran = replicate(replica_id, Span<const ReplicaArgs>(inputs, replicas));
  if (!pod.in_pod()) return ran.status();
  if (ran.status().code() != StatusCode::kUnimplemented)
    return internal_error("replicate on a pod gave {} '{}', expected UNIMPLEMENTED (issue 22 stage 2)",
                          status_code_name(ran.status().code()), ran.status().message());
  log_info("POD replicate {}", ran.status().message());
  return Status::ok();
}

Status program() {
  const PodMembership& pod = pod_membership();
  log_info("POD task {} of {}", pod.task, pod.num_tasks);
  const TPUStrategy strategy = RT_TRY(TPUStrategy::for_board());
  const TPUClusterResolver& resolver = strategy.cluster_resolver();
  log_info("POD resolver task_id {} accelerators {}", resolver.task_id(), resolver.num_accelerators());
  RT_RETURN_IF_ERROR(print_topology(RT_TRY(resolver.initialize_tpu_system())));
  RT_RETURN_IF_ERROR(print_strategy(strategy));
  return check_replicate(pod, strategy);
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
