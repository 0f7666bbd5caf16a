// Intra-replica collectives and the per-core current LogicalDevices.
#include "runtime/tpu/spmd/logical_devices_context.hpp"

#include "hal/core.hpp"
#include "hal/support/new.hpp"

namespace rt::tpu {
namespace {

LogicalDevices* current[hal::kMaxCores] = {};

// Storage for the one-device contexts of code outside replicate (no heap: placement new per core).
alignas(LogicalDevices) uint8_t single_storage[hal::kMaxCores][sizeof(LogicalDevices)];

ReplicaPlacement as_replicas(const ReplicaPlacement& placement, const ReplicaSet& logical_cores) {
  ReplicaPlacement peers;
  peers.replica = placement.logical_core;
  peers.num_replicas = logical_cores.count;
  peers.core = placement.core;
  peers.logical_core = placement.logical_core;
  peers.num_logical_cores = logical_cores.count;
  return peers;
}

ReplicaSet only_core(unsigned core) {
  ReplicaSet set;
  set.count = 1;
  set.core_of[0] = static_cast<uint8_t>(core);
  return set;
}

}  // namespace

LogicalDevices::LogicalDevices(const ReplicaPlacement& placement, const ReplicaSet& logical_cores,
                               uint64_t collective_timeout_ns)
    : replica_(placement.replica),
      logical_core_(placement.logical_core),
      logical_cores_(logical_cores),
      peers_(as_replicas(placement, logical_cores), logical_cores, collective_timeout_ns) {}

LogicalDevices LogicalDevices::single(unsigned core) {
  ReplicaPlacement placement;
  placement.core = core;
  return LogicalDevices(placement, only_core(core), kDefaultWaitTimeoutNs);
}

Result<Tensor> LogicalDevices::all_reduce(ReduceOp op, const Tensor& x, const GroupAssignment& groups) {
  return peers_.all_reduce(op, x, groups);
}

Result<Tensor> LogicalDevices::all_gather(const Tensor& x, const GroupAssignment& groups) {
  return peers_.all_gather(x, groups);
}

Result<Tensor> LogicalDevices::all_to_all(const Tensor& x, int64_t concat_dimension, int64_t split_dimension,
                                          int64_t split_count, const GroupAssignment& groups) {
  return peers_.all_to_all(x, concat_dimension, split_dimension, split_count, groups);
}

Result<Tensor> LogicalDevices::collective_permute(const Tensor& x, Span<const int64_t> source_target_pairs) {
  return peers_.collective_permute(x, source_target_pairs);
}

Result<Tensor> LogicalDevices::broadcast(const Tensor& x, unsigned source_logical_core, const GroupAssignment& groups) {
  return peers_.broadcast(x, source_logical_core, groups);
}

Status LogicalDevices::barrier(const GroupAssignment& groups) { return peers_.barrier(groups); }

LogicalDevices* current_logical_devices() { return current[hal::core_id()]; }

LogicalDevices& logical_devices() {
  if (LogicalDevices* devices = current_logical_devices()) return *devices;
  const unsigned core = hal::core_id();
  return *new (single_storage[core]) LogicalDevices(LogicalDevices::single(core));
}

LogicalDevicesScope::LogicalDevicesScope(LogicalDevices& devices) : previous_(current[hal::core_id()]) {
  current[hal::core_id()] = &devices;
}

LogicalDevicesScope::~LogicalDevicesScope() { current[hal::core_id()] = previous_; }

}  // namespace rt::tpu
