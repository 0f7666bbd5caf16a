// strategy.run's function and results: StrategyFunction (fn as the runtime calls it, made from a
// lambda by strategy_function_of), RunOutputs / RunResult (one value per output) and the arguments
// run() takes (Tensors, DistributedValues, structures, PerReplica structures).
#pragma once
#include "per_replica.hpp"
#include "runtime/tpu/replicate/replicate.hpp"
#include "strategy_replica_context.hpp"

namespace rt::tpu {

// The function run() calls on every replica, as the runtime calls it: its values go to `outputs`,
// in order. Stored by value (an InplaceFunction): the launch keeps its own copy.
using StrategyBody = InplaceFunction<Status(StrategyReplicaContext& context, ReplicaArgs args, ReplicaOutputs& outputs)>;

struct StrategyFunction {
  StringView name;
  StrategyBody fn;
  Signature signature{0, 0, true};  // checked like replicate's computations; default: *args
};

// The strategy function `fn`: a lambda or any callable taking an optional StrategyReplicaContext&
// and then one Tensor per argument, returning Status, Tensor, Result<Tensor> or an Array of
// Tensors (callable_computation.hpp); its arity is deduced.
template <class F>
StrategyFunction strategy_function_of(StringView name, F fn) {
  using Function = detail::ReplicaFunction<F, StrategyReplicaContext>;
  return StrategyFunction{name, Function::body(fn), Signature{Function::kLeaves}};
}

// run()'s result: one value per output (caller storage: it is large).
struct RunOutputs {
  unsigned count = 0;
  DistributedValue values[kMaxReplicaOutputs];

  unsigned size() const { return count; }
  const DistributedValue& operator[](unsigned index) const { return values[index]; }
};

// What the value-returning run() gives back for a function returning Status, a Tensor or an Array
// of Tensors: one value per output, kept in pod memory (the calling core's arena; a PodMemoryScope
// around the calls gives them back). A function returning a struct gets a PerReplica<struct>.
class RunResult {
 public:
  RunResult() = default;
  RunResult(const DistributedValue* values, unsigned count) : values_(values), count_(count) {}
  unsigned size() const { return count_; }
  const DistributedValue& operator[](unsigned index) const { return values_[index]; }
  const DistributedValue* values() const { return values_; }

 private:
  const DistributedValue* values_ = nullptr;
  unsigned count_ = 0;
};

// What run() may take as an argument: a Tensor (plain), a DistributedValue, a structure of Tensors
// (plain: every replica gets it as it is) or a PerReplica<structure> (replica r gets its structure).
template <class A>
inline constexpr bool is_run_argument_v = is_same_v<remove_cvref_t<A>, DistributedValue> || is_per_replica_v<A> ||
                                          nest::is_structure_v<remove_cvref_t<A>>;

namespace detail {
// The tensors an argument passes (a structure's leaves).
template <class A>
constexpr size_t run_argument_leaves() {
  using T = remove_cvref_t<A>;
  if constexpr (is_same_v<T, DistributedValue>) return 1;
  else if constexpr (is_per_replica_v<T>) return T::kLeaves;
  else return nest::leaf_count_v<T>;
}
template <class A>
void add_run_argument(const A& argument, ValueRef* refs, unsigned& count) {
  using T = remove_cvref_t<A>;
  if constexpr (is_same_v<T, DistributedValue>) {
    refs[count++] = argument;
  } else if constexpr (is_per_replica_v<T>) {
    for (const DistributedValue& leaf : argument.leaves()) refs[count++] = leaf;
  } else {
    nest::for_each_leaf(argument, [&](const Tensor& leaf) { refs[count++] = leaf; });
  }
}
template <class S> struct StructuredRun { static constexpr bool value = nest::is_tuple_v<S>; };
}  // namespace detail

}  // namespace rt::tpu
