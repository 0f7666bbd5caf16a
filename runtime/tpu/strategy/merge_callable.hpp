// merge_fn as a lambda (or any callable): merge_fn(strategy, values...) with one DistributedValue
// parameter per merge_call argument, returning Status (nothing), a Tensor or DistributedValue, or a
// Result of either; the arity is deduced and checked against the call. Used by the value-returning
// StrategyReplicaContext::merge_call (strategy_replica_context.hpp), which calls it through a
// MergeFn (an InplaceFunction holding a copy of the lambda).
#pragma once
#include "runtime/tpu/replicate/callable_computation.hpp"
#include "replica_context_merge.hpp"

namespace rt::tpu::detail {

inline Status add_merge_value(const Status& status, MergeResult&) { return status; }
inline Status add_merge_value(const Tensor& value, MergeResult& result) { return result.add(DistributedValue::plain(value)); }
inline Status add_merge_value(const DistributedValue& value, MergeResult& result) { return result.add(value); }
template <class T>
Status add_merge_value(const Result<T>& value, MergeResult& result) {
  if (!value) return value.status();
  return add_merge_value(*value, result);
}

template <class List> struct MergeParams;
template <class First, class... T> struct MergeParams<TypeList<First, T...>> {
  static constexpr bool value = is_same_v<remove_cvref_t<First>, TPUStrategy> &&
                                (is_same_v<remove_cvref_t<T>, DistributedValue> && ...);
};

template <class F>
struct MergeCallable {
  using Traits = CallTraits<F>;
  static_assert(MergeParams<typename Traits::Params>::value,
                "merge_fn takes a TPUStrategy& and then one const DistributedValue& per merge_call argument");
  static constexpr unsigned kArity = Count<typename Traits::Params>::value - 1;

  template <size_t... I>
  static Status invoke(const F& fn, TPUStrategy& strategy, Span<const DistributedValue> args, MergeResult& result,
                       Indices<I...>) {
    return add_merge_value(fn(strategy, args[I]...), result);
  }
  static Status call(const F& fn, TPUStrategy& strategy, Span<const DistributedValue> args, MergeResult& result) {
    if (args.size() != kArity)
      return Status::error(StatusCode::kInvalidArgument, "merge_fn takes {} arguments, merge_call gave it {}", kArity,
                           args.size());
    return invoke(fn, strategy, args, result, typename MakeIndices<kArity>::type{});
  }
};

// The lambda `fn` as a MergeFn.
template <class F>
MergeFn merge_fn_of(F fn) {
  return [fn](TPUStrategy& strategy, Span<const DistributedValue> args, MergeResult& result) {
    return MergeCallable<F>::call(fn, strategy, args, result);
  };
}

}  // namespace rt::tpu::detail
