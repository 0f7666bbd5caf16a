// TPUClusterResolver for a board, and how many replicas a TPUStrategy keeps in sync, pure (no HAL).
// On a TPU pod the resolver finds the TPU workers; a board is one worker whose TPU cores are the
// board's cores, so the resolver is just the core count, and initialize_tpu_system's topology is the
// board's default one (Topology::for_cores). TPUStrategy's num_replicas_in_sync is the number of
// cores without a device assignment, else device_assignment.num_replicas.
#pragma once
#include "runtime/tpu/mesh/device_assignment.hpp"

namespace rt::tpu {

class TPUClusterResolver {
 public:
  // A board with `cores` cores (1..kMaxTpuDevices). TPUStrategy::for_board() uses the running board's.
  static Result<TPUClusterResolver> for_cores(unsigned cores);

  unsigned num_cores() const { return cores_; }
  // TF's resolver of a local TPU: task "worker" 0, master "" (no remote session), one TPU accelerator
  // per core. (A pod of boards gives each board its task; issue 22.)
  StringView task_type() const { return "worker"; }
  int task_id() const { return 0; }
  StringView master() const { return ""; }
  unsigned num_accelerators() const { return cores_; }
  // What tf.tpu.experimental.initialize_tpu_system(resolver) returns: the board's topology.
  Result<Topology> initialize_tpu_system() const { return Topology::for_cores(static_cast<int>(cores_)); }

 private:
  unsigned cores_ = 1;
};

// num_replicas_in_sync of a TPUStrategy on `resolver` with `assignment` (null: none).
unsigned strategy_num_replicas(const TPUClusterResolver& resolver, const DeviceAssignment* assignment);

}  // namespace rt::tpu
