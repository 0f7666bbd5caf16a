// Replica and logical-core placement from a device assignment or TF's default.
#include "pod_placement.hpp"

namespace rt::tpu {
namespace {

Result<PodPlacement> default_placement(unsigned num_replicas, unsigned cores) {
  if (num_replicas != 1 && num_replicas != cores)
    return invalid_argument("'num_replicas' must be equal to 1 or {}, got {}", cores, num_replicas);
  PodPlacement placement;
  placement.num_replicas = num_replicas;
  for (unsigned r = 0; r < num_replicas; ++r) placement.cores[r] = static_cast<uint8_t>(r);
  return placement;
}

Status check_replica_count(unsigned num_replicas, const DeviceAssignment& assignment) {
  if (static_cast<unsigned>(assignment.num_replicas()) == num_replicas) return Status::ok();
  return invalid_argument("Length of device_assignment attribute must be equal to num_replicas ({}) * "
                          "num_cores_per_replica ({}) * {} got {}",
                          num_replicas, assignment.num_cores_per_replica(), kMeshRank,
                          assignment.num_replicas() * assignment.num_cores_per_replica() * kMeshRank);
}

}  // namespace

ReplicaSet PodPlacement::replicas_on_logical_core(unsigned logical_core) const {
  ReplicaSet set;
  set.count = num_replicas;
  set.local_task = static_cast<uint8_t>(local_task);
  set.logical_core = static_cast<uint8_t>(logical_core);
  for (unsigned r = 0; r < num_replicas; ++r) {
    set.core_of[r] = static_cast<uint8_t>(local_core_of(r, logical_core));
    set.task_of[r] = static_cast<uint8_t>(task_of(r, logical_core));
  }
  return set;
}

ReplicaSet PodPlacement::logical_cores_of_replica(unsigned replica) const {
  ReplicaSet set;
  set.count = cores_per_replica;
  set.local_task = static_cast<uint8_t>(local_task);
  for (unsigned l = 0; l < cores_per_replica; ++l) {
    set.core_of[l] = static_cast<uint8_t>(local_core_of(replica, l));
    set.task_of[l] = static_cast<uint8_t>(task_of(replica, l));
  }
  return set;
}

Result<PodPlacement> place_computation(unsigned num_replicas, const DeviceAssignment* assignment, unsigned cores,
                                       PodShape pod) {
  const bool in_pod = pod.num_tasks > 1;
  const unsigned pod_cores = cores * pod.num_tasks;
  PodPlacement placement;
  if (assignment == nullptr) {
    placement = RT_TRY(default_placement(num_replicas, pod_cores));
  } else {
    RT_RETURN_IF_ERROR(check_replica_count(num_replicas, *assignment));
    placement.num_replicas = num_replicas;
    placement.cores_per_replica = static_cast<unsigned>(assignment->num_cores_per_replica());
    const char* where = in_pod ? "pod" : "board";
    for (unsigned r = 0; r < num_replicas; ++r)
      for (unsigned l = 0; l < placement.cores_per_replica; ++l) {
        const int core = assignment->core_of(static_cast<int>(r), static_cast<int>(l));
        if (core < 0 || static_cast<unsigned>(core) >= pod_cores)
          return placement.cores_per_replica == 1
                     ? invalid_argument("the device assignment places replica {} on core {}, but the {} runs {} cores",
                                        r, core, where, pod_cores)
                     : invalid_argument("the device assignment places logical core {} of replica {} on core {}, but "
                                        "the {} runs {} cores",
                                        l, r, core, where, pod_cores);
        placement.cores[r * placement.cores_per_replica + l] = static_cast<uint8_t>(core);
      }
  }
  if (!in_pod) return placement;
  placement.cores_per_board = cores;
  placement.local_task = pod.task;
  for (unsigned r = 0; r < num_replicas; ++r)
    for (unsigned l = 1; l < placement.cores_per_replica; ++l)
      if (placement.task_of(r, l) != placement.task_of(r, 0))
        return invalid_argument("replica {} spans tasks {} and {} (logical cores 0 and {}): a replica's logical cores "
                                "must stay inside one board of the pod; choose a computation_shape that fits one "
                                "board's mesh",
                                r, placement.task_of(r, 0), placement.task_of(r, l), l);
  return placement;
}

}  // namespace rt::tpu
