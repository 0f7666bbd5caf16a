// TPUStrategy's hosts and devices on a board (strategy_hosts.hpp).
#include "strategy_hosts.hpp"

namespace rt::tpu {
namespace {

// The core that runs replica r's logical core 0.
int worker_core(const DeviceAssignment* assignment, unsigned replica) {
  return assignment != nullptr ? assignment->core_of(static_cast<int>(replica), 0) : static_cast<int>(replica);
}

}  // namespace

unsigned strategy_num_hosts(const TPUClusterResolver& resolver, const DeviceAssignment* assignment) {
  // Every core of a board belongs to its one task; a pod counts the distinct tasks of the replicas.
  (void)resolver;
  (void)assignment;
  return 1;
}

unsigned strategy_num_replicas_per_host(const TPUClusterResolver& resolver, const DeviceAssignment* assignment) {
  if (assignment == nullptr) return resolver.num_cores();
  const unsigned per_host = resolver.num_cores() / static_cast<unsigned>(assignment->num_cores_per_replica());
  const unsigned replicas = static_cast<unsigned>(assignment->num_replicas());
  return replicas < per_host ? replicas : per_host;
}

WorkerDevices strategy_worker_devices(const TPUClusterResolver& resolver, const DeviceAssignment* assignment) {
  WorkerDevices devices;
  devices.count = strategy_num_replicas(resolver, assignment);
  for (unsigned replica = 0; replica < devices.count; ++replica)
    format_to(devices.names[replica], "/job:{}/replica:0/task:0/device:TPU:{}", kLocalTpuJob,
              worker_core(assignment, replica));
  return devices;
}

DeviceName strategy_host_cpu_device(int host_id) {
  (void)host_id;  // a local TPU's master is "": TF names the same host whatever the id
  DeviceName name;
  format_to(name, "/replica:0/task:0/device:CPU:0");
  return name;
}

DeviceName strategy_non_slot_device() {
  DeviceName name;
  format_to(name, "/job:{}/replica:0/task:0/device:CPU:0", kLocalTpuJob);
  return name;
}

}  // namespace rt::tpu
