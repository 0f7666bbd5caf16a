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
  // Without an assignment every task hosts replicas; with one, the distinct tasks of the replicas'
  // logical core 0 (a core id is task * cores per task + ordinal).
  if (assignment == nullptr) return resolver.num_tasks();
  bool hosts[kMaxTpuDevices] = {};
  unsigned count = 0;
  for (unsigned replica = 0; replica < static_cast<unsigned>(assignment->num_replicas()); ++replica) {
    const unsigned task = static_cast<unsigned>(worker_core(assignment, replica)) / resolver.num_cores();
    if (task < kMaxTpuDevices && !hosts[task]) ++count, hosts[task] = true;
  }
  return count;
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
  const StringView job = strategy_job(resolver);
  for (unsigned replica = 0; replica < devices.count; ++replica) {
    const unsigned core = static_cast<unsigned>(worker_core(assignment, replica));
    format_to(devices.names[replica], "/job:{}/replica:0/task:{}/device:TPU:{}", job, core / resolver.num_cores(),
              core % resolver.num_cores());
  }
  return devices;
}

DeviceName strategy_host_cpu_device(const TPUClusterResolver& resolver, int host_id) {
  DeviceName name;
  if (resolver.num_tasks() > 1)
    format_to(name, "/job:{}/replica:0/task:{}/device:CPU:0", kPodJob, host_id);
  else  // a local TPU's master is "": TF names the same host whatever the id
    format_to(name, "/replica:0/task:0/device:CPU:0");
  return name;
}

DeviceName strategy_non_slot_device(const TPUClusterResolver& resolver) {
  DeviceName name;
  format_to(name, "/job:{}/replica:0/task:0/device:CPU:0", strategy_job(resolver));
  return name;
}

}  // namespace rt::tpu
