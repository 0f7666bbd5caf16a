// The calling core's current strategy (strategy_scope.hpp).
#include "runtime/tpu/strategy/strategy_scope.hpp"

#include "hal/core.hpp"
#include "runtime/tpu/strategy/strategy_replica_context.hpp"

namespace rt::tpu {
namespace {

const TPUStrategy* current[hal::kMaxCores] = {};

}  // namespace

StrategyScope::~StrategyScope() {
  if (active_) current[hal::core_id()] = previous_;
}

Result<StrategyScope> enter_strategy_scope(const TPUStrategy& strategy) {
  if (current_strategy_replica_context() != nullptr)
    return Status::error(StatusCode::kFailedPrecondition,
                         "Method requires being in cross-replica context, use get_replica_context().merge_call()");
  const TPUStrategy* previous = current[hal::core_id()];
  if (previous == &strategy) return StrategyScope(previous, false);
  if (previous != nullptr)
    return invalid_argument("Mixing different tf.distribute.Strategy objects: TPUStrategy at {} is not TPUStrategy at {}",
                            static_cast<const void*>(&strategy), static_cast<const void*>(previous));
  current[hal::core_id()] = &strategy;
  return StrategyScope(previous, true);
}

const TPUStrategy* get_strategy() { return current[hal::core_id()]; }

bool has_strategy() { return get_strategy() != nullptr; }

bool in_cross_replica_context() { return current_strategy_replica_context() == nullptr; }

}  // namespace rt::tpu
