// Per-core pointer to the replica context of the computation the core is running.
#include "runtime/tpu/replicate/current_replica.hpp"

#include "hal/core.hpp"

namespace rt::tpu {
namespace {

ReplicaContext* current[hal::kMaxCores] = {};

}  // namespace

ReplicaContext* current_replica_context() { return current[hal::core_id()]; }

CurrentReplicaScope::CurrentReplicaScope(ReplicaContext& context) : previous_(current[hal::core_id()]) {
  current[hal::core_id()] = &context;
}

CurrentReplicaScope::~CurrentReplicaScope() { current[hal::core_id()] = previous_; }

}  // namespace rt::tpu
