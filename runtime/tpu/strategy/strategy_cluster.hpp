// TPUClusterResolver for a board or a pod of boards, and how many replicas a TPUStrategy keeps in
// sync, pure (no HAL). On a TPU pod the resolver finds the TPU workers; here a board is one worker
// (task) whose TPU cores are the board's cores, and a pod (`tpu run --boards K`) has K such tasks of
// equal size, so the resolver is the task, the task count and the cores per task;
// initialize_tpu_system's topology is the board's default one (Topology::for_cores) or the boards'
// stacked along z (Topology::for_pod). TPUStrategy's num_replicas_in_sync is every TPU core of the
// cluster without a device assignment, else device_assignment.num_replicas.
#pragma once
#include "runtime/tpu/mesh/device_assignment.hpp"
#include "runtime/tpu/mesh/pod_membership.hpp"

namespace rt::tpu {

// tf.train.ClusterSpec as a TPU pod's resolver gives it: job "worker" with one "host:port" per task
// (TF_CONFIG's where it is set, else each board's machine and port 8470 + its local rank). A single
// board is TF's local TPU: an empty spec.
struct ClusterSpec {
  unsigned num_workers = 0;
  FixedString<64> workers[kMaxPodTasks];  // by task

  StringView job() const { return num_workers == 0 ? StringView() : StringView("worker"); }
  Span<const FixedString<64>> task_addresses() const { return Span<const FixedString<64>>(workers, num_workers); }
};

class TPUClusterResolver {
 public:
  // A board with `cores` cores (1..hal::kMaxCores).
  static Result<TPUClusterResolver> for_cores(unsigned cores);
  // Task `task` of a pod of `num_tasks` boards of `cores` cores each (at most hal::kMaxCores per board,
  // kMaxPodDevices in all). TPUStrategy::for_board() uses the running board's (pod_membership.hpp).
  static Result<TPUClusterResolver> for_pod(unsigned cores, unsigned task, unsigned num_tasks);

  // The cores of one task (one board).
  unsigned num_cores() const { return cores_; }
  unsigned num_tasks() const { return num_tasks_; }
  // Every TPU core of the cluster: num_tasks() * num_cores().
  unsigned num_cluster_cores() const { return num_tasks_ * cores_; }
  // TF's resolver: task type "worker" and this board's task id, master "" (no remote session: each
  // board's tpu is its own host), one TPU accelerator per core of a task.
  StringView task_type() const { return "worker"; }
  int task_id() const { return static_cast<int>(task_); }
  StringView master() const { return ""; }
  unsigned num_accelerators() const { return cores_; }
  // TF's cluster_spec(): the pod's workers, asked of the board's tpu (empty on a single board).
  Result<ClusterSpec> cluster_spec() const;
  // What tf.tpu.experimental.initialize_tpu_system(resolver) returns: the board's or the pod's topology.
  Result<Topology> initialize_tpu_system() const {
    return Topology::for_pod(static_cast<int>(num_tasks_), static_cast<int>(cores_));
  }

 private:
  unsigned cores_ = 1;
  unsigned task_ = 0;
  unsigned num_tasks_ = 1;
};

// tf.tpu.experimental.initialize_tpu_system(resolver) / shutdown_tpu_system(resolver) as free
// functions (TF 2.x), and compat.v1's tpu.initialize_system() / shutdown_system(), whose op yields the
// serialized TopologyProto: a board's TPU system is up once its firmware runs, so initialising gives
// its (or the pod's) topology and shutting down has nothing to stop.
inline Result<Topology> initialize_tpu_system(const TPUClusterResolver& resolver) {
  return resolver.initialize_tpu_system();
}
inline Status shutdown_tpu_system(const TPUClusterResolver&) { return Status::ok(); }
inline Result<TopologyProtoBytes> initialize_system(const TPUClusterResolver& resolver) {
  return RT_TRY(resolver.initialize_tpu_system()).serialized();
}
inline Status shutdown_system(const TPUClusterResolver&) { return Status::ok(); }

// num_replicas_in_sync of a TPUStrategy on `resolver` with `assignment` (null: none).
unsigned strategy_num_replicas(const TPUClusterResolver& resolver, const DeviceAssignment* assignment);

}  // namespace rt::tpu
