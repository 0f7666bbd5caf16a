// Running one replica on the calling core: padding, infeed, context, computation; a failure leaves
// the launch, so peers waiting for this core stop (cancellation.hpp).
#include "runtime/tpu/replicate/replica_launch.hpp"

#include "runtime/tpu/replicate/current_replica.hpp"
#include "runtime/collectives/cancellation.hpp"
#include "hal/core.hpp"
#include "runtime/tpu/spmd/logical_devices_context.hpp"
#include "runtime/log/log.hpp"
#include "runtime/tensor/hbm.hpp"

namespace rt::tpu {
namespace {

// Each core's arguments for the replica it runs (static: a core's stack is small, and one launch runs
// on a core at a time).
Tensor arguments_of_core[hal::kMaxCores][kMaxReplicaInputs];

// args[0 .. num_inputs): the inputs, padded copies where the plan says so.
Status prepare_inputs(const Launch& launch, Tensor* args) {
  for (unsigned k = 0; k < launch.num_inputs; ++k) {
    Result<Tensor> input = pad_input(launch.inputs[k], launch.padding[k], hbm());
    if (!input) return input.status();
    args[k] = *input;
  }
  return Status::ok();
}

// args[num_inputs ..): the replica's infeed tuple.
Status dequeue_infeed(const Launch& launch, Tensor* args) {
  if (!launch.has_infeed) return Status::ok();
  if (!launch.infeed.dequeue)
    return Status::error(StatusCode::kUnimplemented, "replicate: the infeed binding has no dequeue function");
  return launch.infeed.dequeue(launch.placement.replica, args + launch.num_inputs, hbm());
}

// The replica's logical cores; a launch filled without them (one core per replica) spans its own core.
ReplicaSet logical_cores_of(const Launch& launch) {
  if (launch.logical_cores.count != 0) return launch.logical_cores;
  ReplicaSet own_core;
  own_core.count = 1;
  own_core.core_of[0] = static_cast<uint8_t>(launch.placement.core);
  return own_core;
}

Status run_replica(const Launch& launch, ReplicaOutputs& outputs) {
  Tensor* args = arguments_of_core[hal::core_id()];
  RT_RETURN_IF_ERROR(prepare_inputs(launch, args));
  RT_RETURN_IF_ERROR(dequeue_infeed(launch, args));
  const unsigned num_args = launch.num_inputs + (launch.has_infeed ? launch.infeed.number_of_tuple_elements : 0);
  ReplicaContext context(launch.placement, launch.replicas, launch.collective_timeout_ns);
  CurrentReplicaScope scope(context);
  LogicalDevices logical_devices(launch.placement, logical_cores_of(launch), launch.collective_timeout_ns);
  LogicalDevicesScope logical_scope(logical_devices);
  return launch.computation.fn(context, ReplicaArgs(args, num_args), outputs);
}

}  // namespace

Status run_launch(const Launch& launch, ReplicaOutputs& outputs) {
  outputs.clear();
  if (hal::core_id() != launch.placement.core)
    return internal_error("replica {} of '{}' was launched for core {} but runs on core {}", launch.placement.replica,
                          launch.computation.name, launch.placement.core, hal::core_id());
  LaunchScope scope(launch.id);
  const Status status = run_replica(launch, outputs);
  if (status.is_ok()) return status;
  // Where the error comes from, on this core's console: replicate returns one status for the launch
  // (core 0's verdict shows it), which does not say which replica failed. Not for a replica that only
  // stopped waiting for a failed peer (CANCELLED): the cause says it.
  if (status.code() != StatusCode::kCancelled) {
    FixedString<32> logical;
    if (launch.placement.num_logical_cores > 1) format_to(logical, " (logical core {})", launch.placement.logical_core);
    log_error("replica {}{} failed on core {}: {}: {}", launch.placement.replica, logical.view(), hal::core_id(),
              status_code_name(status.code()), status.message());
  }
  leave_launch(status);
  return status;
}

}  // namespace rt::tpu
