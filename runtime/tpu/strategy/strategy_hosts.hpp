// What TPUStrategy says about its hosts and devices (TF's contrib names first, then TF 2.x's), pure
// (no HAL). A board is TF's local TPU: one host, task 0 of job "localhost", whose TPU devices are the
// board's cores. So num_hosts is 1, a worker device is "/job:localhost/replica:0/task:0/device:TPU:k"
// (k: the core that runs the replica's logical core 0, from the device assignment if there is one),
// and the host's CPU is "/job:localhost/replica:0/task:0/device:CPU:0". In a pod of boards (`tpu run
// --boards K`) each board is a task of job "worker" (TF's remote TPU workers): num_hosts counts the
// tasks the replicas run on and a device is "/job:worker/replica:0/task:t/device:TPU:k" (k: the
// core's ordinal on its board). TF_BEHAVIOUR.md (TPUStrategy's hosts) has the details
// and where this differs from r1.12's TPUStrategy, which answered for the host CPU.
#pragma once
#include "strategy_cluster.hpp"

namespace rt::tpu {

// The job a board's devices belong to (TF's local TPU), and a pod's (TF's TPU workers).
inline constexpr StringView kLocalTpuJob = "localhost";
inline constexpr StringView kPodJob = "worker";
inline StringView strategy_job(const TPUClusterResolver& resolver) {
  return resolver.num_tasks() > 1 ? kPodJob : kLocalTpuJob;
}

// The strategy's worker devices in replica order (TF's worker_devices / parameter_devices tuple).
struct WorkerDevices {
  DeviceName names[kMaxTpuDevices];
  unsigned count = 0;
  Span<const DeviceName> span() const { return Span<const DeviceName>(names, count); }
};

// TF's num_hosts: the hosts the replicas run on (distinct host devices of the replicas).
unsigned strategy_num_hosts(const TPUClusterResolver& resolver, const DeviceAssignment* assignment);
// TF 2.x's num_replicas_per_host: the cores of a host without an assignment, else
// min(num_replicas, cores per host / cores per replica).
unsigned strategy_num_replicas_per_host(const TPUClusterResolver& resolver, const DeviceAssignment* assignment);
// worker_devices: replica r's device (its logical core 0), canonical names.
WorkerDevices strategy_worker_devices(const TPUClusterResolver& resolver, const DeviceAssignment* assignment);
// get_host_cpu_device(host_id): on a local TPU TF answers "/replica:0/task:0/device:CPU:0" for any id;
// in a pod, task host_id's CPU of job "worker".
DeviceName strategy_host_cpu_device(const TPUClusterResolver& resolver, int host_id);
// non_slot_devices(var_list): task 0's CPU, where TF keeps non-slot variables (the list is ignored).
DeviceName strategy_non_slot_device(const TPUClusterResolver& resolver);

}  // namespace rt::tpu
