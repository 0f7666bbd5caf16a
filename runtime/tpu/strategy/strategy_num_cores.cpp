// The device assignment of the first num_cores cores (strategy_num_cores.hpp).
#include "strategy_num_cores.hpp"

#include "hal/support/new.hpp"

namespace rt::tpu {
namespace {

// One assignment per core count, rebuilt only when the cluster's shape differs from the one it was
// built for (a board has one; the unit tests make several).
struct Slot {
  alignas(DeviceAssignment) unsigned char storage[sizeof(DeviceAssignment)];
  bool built = false;
  unsigned tasks = 0, cores_per_task = 0;
  DeviceAssignment* get() { return reinterpret_cast<DeviceAssignment*>(storage); }
};

Slot slots[kMaxTpuDevices + 1];

Result<DeviceAssignment> first_cores(const TPUClusterResolver& resolver, unsigned num_cores) {
  const Topology topology = RT_TRY(resolver.initialize_tpu_system());
  int32_t coordinates[kMaxTpuDevices * kMeshRank];
  for (unsigned core = 0; core < num_cores; ++core)
    for (int d = 0; d < kMeshRank; ++d)
      coordinates[core * kMeshRank + d] = topology.coordinates_of_core(static_cast<int>(core))[d];
  const int32_t shape[] = {static_cast<int32_t>(num_cores), 1, kMeshRank};
  return DeviceAssignment::create(topology, Span<const int32_t>(coordinates, num_cores * kMeshRank), shape);
}

}  // namespace

Result<const DeviceAssignment*> num_cores_assignment(const TPUClusterResolver& resolver, unsigned num_cores,
                                                     const DeviceAssignment* assignment) {
  if (num_cores == 0) return assignment;
  if (assignment != nullptr)
    return invalid_argument("num_cores ({}) and a device_assignment cannot both be given: the device assignment "
                            "says which cores the replicas run on",
                            num_cores);
  if (num_cores > resolver.num_cluster_cores())
    return invalid_argument("num_cores is {}, but the cluster has {} TPU cores", num_cores,
                            resolver.num_cluster_cores());
  Slot& slot = slots[num_cores];
  if (!slot.built || slot.tasks != resolver.num_tasks() || slot.cores_per_task != resolver.num_cores()) {
    const DeviceAssignment built = RT_TRY(first_cores(resolver, num_cores));
    new (slot.storage) DeviceAssignment(built);
    slot.built = true;
    slot.tasks = resolver.num_tasks();
    slot.cores_per_task = resolver.num_cores();
  }
  return static_cast<const DeviceAssignment*>(slot.get());
}

}  // namespace rt::tpu
