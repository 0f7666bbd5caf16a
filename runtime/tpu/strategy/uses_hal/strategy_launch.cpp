// TPUStrategy's one way onto the replicas: a replicate launch whose computation wraps the strategy
// function in the replica's StrategyReplicaContext (current on its core, merge_call enabled) and ends
// with the function's last merge_call sync point. The launch's state is static: replicate runs on
// core 0 only and never nests, so one launch exists at a time.
#include "runtime/tpu/strategy/strategy.hpp"

#include "runtime/tpu/replicate/executor.hpp"
#include "hal/core.hpp"

namespace rt::tpu {
namespace {

struct LaunchState {
  StrategyFunction body;
  MergeRendezvous rendezvous;
  Tensor inputs[kMaxReplicas][kMaxReplicaInputs];
  ReplicaArgs replica_args[kMaxReplicas];
  ReplicateResult result;
};

LaunchState state;

Status strategy_entry(LaunchState& launch, ReplicaContext& replica, ReplicaArgs args, ReplicaOutputs& outputs) {
  StrategyReplicaContext context(replica, launch.rendezvous);
  StrategyContextScope scope(&context);
  const Status status = launch.body.fn(context, args, outputs);
  return context.merge().finish(status);
}

}  // namespace

Status TPUStrategy::check_arguments(Span<const ValueRef> args) const {
  if (args.size() > kMaxReplicaInputs)
    return invalid_argument("a strategy function takes at most {} arguments, got {}", kMaxReplicaInputs, args.size());
  for (unsigned k = 0; k < args.size(); ++k)
    if (args[k].is_distributed() && args[k].num_components() != num_replicas_)
      return invalid_argument("argument {} is a {} value with {} components, but the strategy has {} replicas", k,
                              value_kind_name(args[k].kind()), args[k].num_components(), num_replicas_);
  return Status::ok();
}

// The launch state (here, and run_steps_on_dataset's and update's) is static and read by running
// replicas: a replica of an earlier launch that outlived its timeout must be gone before it is rewritten.
Status TPUStrategy::require_idle_replicas() const {
  for (unsigned core = 0; core < hal::core_count(); ++core)
    if (!core_idle(core))
      return Status::error(StatusCode::kFailedPrecondition,
                           "a replica of an earlier strategy launch (it timed out) is still running on core {}; "
                           "refusing to start another while it may read the launch state",
                           core);
  return Status::ok();
}

Status TPUStrategy::launch(const StrategyFunction& body, Span<const ValueRef> args, const ReplicateResult** result) {
  RT_RETURN_IF_ERROR(require_cross_replica_context());
  RT_RETURN_IF_ERROR(check_arguments(args));
  RT_RETURN_IF_ERROR(require_idle_replicas());
  state.body = body;
  state.rendezvous.reset(this);
  for (unsigned r = 0; r < num_replicas_; ++r) {
    for (unsigned k = 0; k < args.size(); ++k) state.inputs[r][k] = args[k].component(r);
    state.replica_args[r] = ReplicaArgs(state.inputs[r], args.size());
  }
  const Computation computation{body.name,
                                [](ReplicaContext& replica, ReplicaArgs replica_args, ReplicaOutputs& outputs) {
                                  return strategy_entry(state, replica, replica_args, outputs);
                                },
                                body.signature};
  ReplicateOptions options;
  options.device_assignment = options_.device_assignment;
  options.timeout_ns = options_.timeout_ns;
  options.collective_timeout_ns = options_.collective_timeout_ns;
  ++launches_;
  *result = &state.result;
  return replicate(computation, Span<const ReplicaArgs>(state.replica_args, num_replicas_), options, state.result);
}

}  // namespace rt::tpu
