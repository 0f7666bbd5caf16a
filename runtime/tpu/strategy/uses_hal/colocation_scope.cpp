// The calling core's colocate_vars_with scopes (colocation_scope.hpp).
#include "runtime/tpu/strategy/colocation_scope.hpp"

#include "hal/core.hpp"
#include "runtime/tpu/strategy/strategy.hpp"

namespace rt::tpu {
namespace {

const MirroredVariable* current[hal::kMaxCores] = {};

const char kOnlyThisScope[] =
    "`colocate_vars_with` must only be passed a variable created in this tf.distribute.Strategy.scope(), ";

// TF's _require_strategy_scope_extended.
Status require_strategy_scope(const TPUStrategy& strategy) {
  const TPUStrategy* current_strategy = get_strategy();
  if (current_strategy == &strategy) return Status::ok();
  if (current_strategy == nullptr)
    return Status::error(StatusCode::kFailedPrecondition,
                         "Need to be inside \"with strategy.scope()\" for TPUStrategy at {}",
                         static_cast<const void*>(&strategy));
  return Status::error(StatusCode::kFailedPrecondition,
                       "Mixing different tf.distribute.Strategy objects: TPUStrategy at {} is not TPUStrategy at {}",
                       static_cast<const void*>(current_strategy), static_cast<const void*>(&strategy));
}

// TF's validate_colocate_distributed_variable.
Status validate_variable(const TPUStrategy& strategy, const MirroredVariable& variable) {
  if (variable.strategy == nullptr)
    return invalid_argument("{}not: MirroredVariable at {}", kOnlyThisScope, static_cast<const void*>(&variable));
  if (variable.strategy != &strategy)
    return invalid_argument("{}not MirroredVariable at {} created in scope: TPUStrategy at {}", kOnlyThisScope,
                            static_cast<const void*>(&variable), static_cast<const void*>(variable.strategy));
  return Status::ok();
}

}  // namespace

ColocationScope::~ColocationScope() {
  if (active_) current[hal::core_id()] = previous_;
}

Result<ColocationScope> enter_colocation_scope(const TPUStrategy& strategy, const MirroredVariable& variable) {
  RT_RETURN_IF_ERROR(require_strategy_scope(strategy));
  RT_RETURN_IF_ERROR(validate_variable(strategy, variable));
  const MirroredVariable* previous = current[hal::core_id()];
  current[hal::core_id()] = &variable;
  return ColocationScope(previous);
}

const MirroredVariable* colocation_variable() { return current[hal::core_id()]; }

Result<ColocationScope> TPUStrategy::colocate_vars_with(const MirroredVariable& variable) const {
  return enter_colocation_scope(*this, variable);
}

}  // namespace rt::tpu
