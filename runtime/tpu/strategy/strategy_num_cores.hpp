// contrib TPUStrategy's num_cores (StrategyOptions::num_cores), pure (no HAL). TF: num_replicas =
// num_cores or the TPU's core count (0, TF's None, means every core), and the replicas are the first
// num_cores TPU devices. The runtime carries it as a device assignment of those cores (one core per
// replica, replica r on core r), which create() uses in place of none: num_replicas_in_sync,
// worker_devices and every launch then follow it. The assignments live in static storage (one per
// core count, for the board's resolver), so a strategy's pointer stays valid when it is moved.
// Errors (the runtime's texts; TF has no check when the strategy is made, it fails when the TPU
// program is built): more cores than the cluster has, and num_cores with a device_assignment (TF's
// contrib TPUStrategy has no device assignment, TF 2.x's no num_cores).
#pragma once
#include "strategy_cluster.hpp"

namespace rt::tpu {

// The device assignment a strategy with `num_cores` runs on: `assignment` when num_cores is 0,
// else the first num_cores cores of `resolver`'s cluster.
Result<const DeviceAssignment*> num_cores_assignment(const TPUClusterResolver& resolver, unsigned num_cores,
                                                     const DeviceAssignment* assignment);

}  // namespace rt::tpu
