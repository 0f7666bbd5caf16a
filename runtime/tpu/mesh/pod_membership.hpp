// Which task of a pod of boards this board is: TF's task id of a TPU worker. `tpu run --boards K`
// starts K boards, one per Open MPI rank, and tells each its rank as its task (the link's kPod
// message, right after the host's hello); the firmware records it here once, before the app runs, and
// everything after reads it (the cluster resolver, the pod's topology). A board run alone, or by a
// host that never says, is task 0 of 1.
#pragma once

namespace rt::tpu {

// The most boards a pod holds (the link's kMaxPodTasks).
inline constexpr unsigned kMaxPodTasks = 16;

struct PodMembership {
  unsigned task = 0;
  unsigned num_tasks = 1;

  bool in_pod() const { return num_tasks > 1; }
  // The first of this board's replicas when `num_replicas` replicas are placed in TF's default
  // (task-major) order: replica r runs on task r * num_tasks / num_replicas.
  unsigned first_local_replica(unsigned num_replicas) const { return task * num_replicas / num_tasks; }
};

// Set once by the firmware before the app runs (task < num_tasks <= kMaxPodTasks, else ignored).
void set_pod_membership(const PodMembership& membership);
// This board's place (task 0 of 1 until set).
const PodMembership& pod_membership();

}  // namespace rt::tpu
