// What a TPUStrategy is made with (TPUStrategy::create / for_board): the device assignment, contrib's
// steps_per_run and num_cores, and the replicas' and collectives' timeouts.
#pragma once
#include "runtime/tpu/mesh/device_assignment.hpp"
#include "runtime/tpu/replicate/replicate.hpp"

namespace rt::tpu {

// The options of TPUStrategy::create.
struct StrategyOptions {
  const DeviceAssignment* device_assignment = nullptr;  // must outlive the strategy
  unsigned steps_per_run = 1;
  uint64_t timeout_ns = kDefaultReplicaTimeoutNs;
  uint64_t collective_timeout_ns = kDefaultWaitTimeoutNs;
  // contrib's num_cores: the replicas are the first num_cores TPU cores; 0 (TF's None): every core
  // (strategy_num_cores.hpp). Not with a device_assignment.
  unsigned num_cores = 0;
};

}  // namespace rt::tpu
