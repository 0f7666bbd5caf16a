// strategy.scope(), tf.distribute.get_strategy(), has_strategy() and in_cross_replica_context()
// (runtime/tpu/strategy/strategy_scope.hpp): the current strategy inside and after a scope, a nested
// scope of the same strategy, TF's texts for another strategy's scope inside one and for a scope
// entered inside a replica function.
#include "runtime/tpu/strategy/strategy_scope.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::tpu::get_strategy;
using rt::tpu::has_strategy;
using rt::tpu::in_cross_replica_context;

Status expect(bool condition, const char* what) {
  return condition ? Status::ok() : rt::internal_error("scope: {}", what);
}

Status inside_scope(const TPUStrategy& a, const TPUStrategy& b) {
  RT_RETURN_IF_ERROR(expect(get_strategy() == &a && has_strategy() && in_cross_replica_context(),
                            "inside a's scope, a is current and the context is cross-replica"));
  {
    Result<rt::tpu::StrategyScope> again = a.scope();
    if (!again) return again.status();
    RT_RETURN_IF_ERROR(expect(get_strategy() == &a, "a nested scope of a keeps a current"));
  }
  RT_RETURN_IF_ERROR(expect(get_strategy() == &a, "a stays current after the nested scope of a ends"));
  rt::FixedString<160> mixing;
  rt::format_to(mixing, "Mixing different tf.distribute.Strategy objects: TPUStrategy at {} is not TPUStrategy at {}",
            static_cast<const void*>(&b), static_cast<const void*>(&a));
  return expect_error(b.scope().status(), rt::StatusCode::kInvalidArgument, mixing.view(), "b's scope inside a's");
}

}  // namespace

Status run_scope_cases(unsigned cores) {
  (void)cores;
  TPUStrategy a = RT_TRY(TPUStrategy::for_board());
  TPUStrategy b = RT_TRY(TPUStrategy::for_board());
  RT_RETURN_IF_ERROR(expect(!has_strategy() && get_strategy() == nullptr && in_cross_replica_context(),
                            "no strategy is current before any scope"));
  {
    Result<rt::tpu::StrategyScope> scope = a.scope();
    if (!scope) return scope.status();
    RT_RETURN_IF_ERROR(inside_scope(a, b));
    // Inside a replica function: replica context, and no scope may be entered there.
    auto replica_fn = [&a](StrategyReplicaContext& context) -> Result<Tensor> {
      if (in_cross_replica_context()) return rt::internal_error("scope: a replica function is in cross-replica context");
      RT_RETURN_IF_ERROR(expect_error(a.scope().status(), rt::StatusCode::kFailedPrecondition,
                                      "Method requires being in cross-replica context, use "
                                      "get_replica_context().merge_call()",
                                      "a scope entered in a replica function"));
      return rt::scalar(context.arena(), 1.0f);
    };
    RT_TRY(a.run(replica_fn));
  }
  return expect(!has_strategy() && get_strategy() == nullptr, "no strategy is current after the scope ends");
}

}  // namespace strategy_test
