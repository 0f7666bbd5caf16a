// The board's cluster resolver and TPUStrategy's replica count.
#include "strategy_cluster.hpp"

namespace rt::tpu {

Result<TPUClusterResolver> TPUClusterResolver::for_cores(unsigned cores) {
  if (cores == 0 || cores > static_cast<unsigned>(kMaxTpuDevices))
    return invalid_argument("a TPU cluster on a board needs 1 to {} cores, got {}", kMaxTpuDevices, cores);
  TPUClusterResolver resolver;
  resolver.cores_ = cores;
  return resolver;
}

Result<TPUClusterResolver> TPUClusterResolver::for_pod(unsigned cores, unsigned task, unsigned num_tasks) {
  if (num_tasks == 0 || task >= num_tasks)
    return invalid_argument("task {} is not one of a pod's {} tasks", task, num_tasks);
  if (cores == 0 || uint64_t{cores} * num_tasks > static_cast<unsigned>(kMaxTpuDevices))
    return invalid_argument("a TPU cluster of {} boards of {} cores has {} cores; the runtime's tables hold 1 to {}",
                            num_tasks, cores, uint64_t{cores} * num_tasks, kMaxTpuDevices);
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
