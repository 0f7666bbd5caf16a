// `with strategy.scope():` as TF has it: while a scope is alive, its strategy is the calling core's
// current strategy (tf.distribute.get_strategy(), has_strategy()), and the code in it is in
// cross-replica context. TF's rules and texts:
//   - entering the scope of the strategy that is already current is a scope that changes nothing;
//   - entering another strategy's scope inside one: "Mixing different tf.distribute.Strategy objects:
//     <the other> is not <the current>" (INVALID_ARGUMENT; TF raises ValueError);
//   - entering a scope inside a replica function (strategy.run): "Method requires being in
//     cross-replica context, use get_replica_context().merge_call()" (FAILED_PRECONDITION).
// A strategy prints as "TPUStrategy at 0x<address>" (TF prints the Python object the same way).
// Scopes end in reverse order (RAII), restoring the previous current strategy.
#pragma once
#include "hal/support/result.hpp"

namespace rt::tpu {

class TPUStrategy;

class StrategyScope {
 public:
  StrategyScope(StrategyScope&& other) : previous_(other.previous_), active_(other.active_) { other.active_ = false; }
  StrategyScope(const StrategyScope&) = delete;
  StrategyScope& operator=(const StrategyScope&) = delete;
  StrategyScope& operator=(StrategyScope&&) = delete;
  ~StrategyScope();

 private:
  friend Result<StrategyScope> enter_strategy_scope(const TPUStrategy& strategy);
  StrategyScope(const TPUStrategy* previous, bool active) : previous_(previous), active_(active) {}

  const TPUStrategy* previous_;
  bool active_;  // false: a scope of the strategy that was already current (changes nothing)
};

// strategy.scope() (TPUStrategy::scope() calls it).
Result<StrategyScope> enter_strategy_scope(const TPUStrategy& strategy);

// tf.distribute.get_strategy(): the calling core's current strategy, or null where TF would give its
// default strategy (no scope entered); has_strategy(): whether there is one.
const TPUStrategy* get_strategy();
bool has_strategy();
// tf.distribute.in_cross_replica_context(): false inside a replica function (strategy.run), true
// elsewhere (in a scope, or with no strategy at all, as TF's default strategy is).
bool in_cross_replica_context();

}  // namespace rt::tpu
