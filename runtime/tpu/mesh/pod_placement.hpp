// PodPlacement: which core runs each logical core of each replica of one replicate call, and the two
// ways the cores group for collectives:
//   - across replicas: logical core l of every replica (cross_replica_sum acts between the same
//     logical core of each replica, as on a TPU);
//   - within a replica: the logical cores ("logical devices") of one replica (model parallelism).
// Built from a DeviceAssignment (its core_of(replica, logical_core)) or, without one, TF's default:
// one core per replica, replica r on core r, and 1 or `cores` replicas. HAL-free: the board's core
// count is a parameter. In a pod of boards (PodShape) the cores are the pod's: core c runs on task
// c / cores_per_board as that board's core c % cores_per_board, each board launches only its own
// replicas, and a replica's logical cores stay on one board.
#pragma once
#include "device_assignment.hpp"
#include "runtime/collectives/collectives.hpp"

namespace rt::tpu {

// Where a board stands in its pod (task 0 of 1: a single board).
struct PodShape {
  unsigned task = 0;
  unsigned num_tasks = 1;
};

struct PodPlacement {
  unsigned num_replicas = 0;
  unsigned cores_per_replica = 1;
  unsigned cores_per_board = 0;  // 0: a single board, every core local
  unsigned local_task = 0;
  uint8_t cores[kMaxPodDevices] = {};  // [replica][logical core]: the pod's core ids (global)

  unsigned num_tasks() const { return num_replicas * cores_per_replica; }
  unsigned core_of(unsigned replica, unsigned logical_core) const {
    return cores[replica * cores_per_replica + logical_core];
  }
  // The board (task) running it, its core there, and whether that is this board.
  unsigned task_of(unsigned replica, unsigned logical_core) const {
    return cores_per_board == 0 ? 0 : core_of(replica, logical_core) / cores_per_board;
  }
  unsigned local_core_of(unsigned replica, unsigned logical_core) const {
    return cores_per_board == 0 ? core_of(replica, logical_core) : core_of(replica, logical_core) % cores_per_board;
  }
  bool is_local(unsigned replica, unsigned logical_core) const { return task_of(replica, logical_core) == local_task; }
  // Replica r -> the core running logical core `logical_core` of replica r.
  ReplicaSet replicas_on_logical_core(unsigned logical_core) const;
  // Logical core l -> the core running logical core l of `replica`.
  ReplicaSet logical_cores_of_replica(unsigned replica) const;
};

// The placement of `num_replicas` replicas on a board running `cores` cores, with replicate's checks
// and texts (replicate.hpp): "'num_replicas' must be equal to 1 or {N}, got {n}" without an
// assignment; with one, its replica count must match and its cores must exist on the board.
// In a pod, `cores` is one board's and the placement spans every board's ("... or {K*C}").
Result<PodPlacement> place_computation(unsigned num_replicas, const DeviceAssignment* assignment, unsigned cores,
                                       PodShape pod = {});

}  // namespace rt::tpu
