// The board's cluster resolver and TPUStrategy's replica count.
#include "strategy_cluster.hpp"

namespace rt::tpu {

Result<TPUClusterResolver> TPUClusterResolver::for_cores(unsigned cores) {
  if (cores == 0 || cores > hal::kMaxCores)
    return invalid_argument("a TPU cluster on a board needs 1 to {} cores, got {}", hal::kMaxCores, cores);
  TPUClusterResolver resolver;
  resolver.cores_ = cores;
  return resolver;
}

Result<TPUClusterResolver> TPUClusterResolver::for_pod(unsigned cores, unsigned task, unsigned num_tasks) {
  if (num_tasks == 0 || task >= num_tasks)
    return invalid_argument("task {} is not one of a pod's {} tasks", task, num_tasks);
  if (num_tasks > kMaxPodTasks)  // the cluster spec's table
    return invalid_argument("a TPU cluster has at most {} boards (kMaxPodTasks), got {}", kMaxPodTasks, num_tasks);
  if (cores == 0 || cores > hal::kMaxCores || uint64_t{cores} * num_tasks > kMaxPodDevices)
    return invalid_argument(
        "a TPU cluster of {} boards of {} cores has {} cores; the runtime's tables hold 1 to {} (kMaxPodDevices) in all, "
        "1 to {} (hal::kMaxCores) per board",
        num_tasks, cores, uint64_t{cores} * num_tasks, kMaxPodDevices, hal::kMaxCores);
  TPUClusterResolver resolver;
  resolver.cores_ = cores;
  resolver.task_ = task;
  resolver.num_tasks_ = num_tasks;
  return resolver;
}

unsigned strategy_num_replicas(const TPUClusterResolver& resolver, const DeviceAssignment* assignment) {
  return assignment != nullptr ? static_cast<unsigned>(assignment->num_replicas()) : resolver.num_cluster_cores();
}

}  // namespace rt::tpu
