// contrib's strategy.colocate_vars_with(var): a scope in which the variables a strategy creates are
// placed with `var`. TF's rules and texts, checked in TF's order when the scope is entered:
//   - the strategy's scope must be the current one: none at all is 'Need to be inside "with
//     strategy.scope()" for <strategy>', another strategy's is "Mixing different tf.distribute.Strategy
//     objects: <current> is not <strategy>" (FAILED_PRECONDITION; TF raises RuntimeError);
//   - `var` must be a variable this strategy created: "`colocate_vars_with` must only be passed a
//     variable created in this tf.distribute.Strategy.scope(), not: <var>" for one no strategy made,
//     "... not <var> created in scope: <its strategy>" for another strategy's (INVALID_ARGUMENT; TF's
//     ValueError).
// Objects print as "TPUStrategy at 0x..." and "MirroredVariable at 0x..." (TF prints Python reprs).
// On a board every variable a strategy creates has one copy on each of its replicas (its parameter
// devices), which are `var`'s, so the placement TF asks for holds by construction; the scope records
// `var` (colocation_variable()) while it lives. Scopes end in reverse order (RAII).
#pragma once
#include "hal/support/result.hpp"

namespace rt::tpu {

class TPUStrategy;
struct MirroredVariable;

class ColocationScope {
 public:
  ColocationScope(ColocationScope&& other) : previous_(other.previous_), active_(other.active_) { other.active_ = false; }
  ColocationScope(const ColocationScope&) = delete;
  ColocationScope& operator=(const ColocationScope&) = delete;
  ColocationScope& operator=(ColocationScope&&) = delete;
  ~ColocationScope();

 private:
  friend Result<ColocationScope> enter_colocation_scope(const TPUStrategy& strategy, const MirroredVariable& variable);
  explicit ColocationScope(const MirroredVariable* previous) : previous_(previous), active_(true) {}

  const MirroredVariable* previous_;
  bool active_;
};

// strategy.colocate_vars_with(variable) (TPUStrategy::colocate_vars_with calls it).
Result<ColocationScope> enter_colocation_scope(const TPUStrategy& strategy, const MirroredVariable& variable);

// The variable the calling core's innermost colocate_vars_with scope names, or null.
const MirroredVariable* colocation_variable();

}  // namespace rt::tpu
