// Launch: everything a core needs to run one replica of a replicated computation, and run_launch,
// which runs it on the calling core. Core 0 fills a Launch per replica (executor.hpp carries it to the
// replica's core); the replica's core pads its inputs into its own arena (padded copies live in the
// destination core's HBM), appends its infeed tuple, makes the replica's context current and calls
// the computation. With model parallelism (a replica spanning several cores) there is one Launch per
// logical core of each replica: every one runs the computation on the replica's inputs (SPMD) with its
// logical core's ReplicaContext (collectives across replicas act between the same logical core of each
// replica) and LogicalDevices (collectives across the replica's logical cores) made current.
// A Launch holds copies (the computation, the tensor views, the padding decisions),
// so a replica that outlives a timed-out replicate never reads core 0's stack.
#pragma once
#include "computation.hpp"
#include "dynamic_padding.hpp"
#include "runtime/tpu/infeed/infeed_hook.hpp"
#include "replica_context.hpp"

namespace rt::tpu {

struct Launch {
  uint64_t id = 0;                                  // the replicate call's number on this board (cancellation.hpp)
  Computation computation;
  ReplicaPlacement placement;
  ReplicaSet replicas;                              // replica id -> core of this logical core, for collectives
  ReplicaSet logical_cores;                         // this replica's logical core -> core
  uint64_t collective_timeout_ns = kDefaultWaitTimeoutNs;
  unsigned num_inputs = 0;
  Tensor inputs[kMaxReplicaInputs];                 // this replica's inputs, unpadded
  InputPadding padding[kMaxReplicaInputs];          // per input: whether and how to pad
  bool has_infeed = false;
  InfeedBinding infeed;
};

// Runs `launch` on the calling core (which must be launch.placement.core); the computation's values
// land in `outputs` (cleared first). If it fails, the launch's cores that wait for this one in a
// collective stop (CANCELLED) rather than at the collectives' timeout.
Status run_launch(const Launch& launch, ReplicaOutputs& outputs);

}  // namespace rt::tpu
