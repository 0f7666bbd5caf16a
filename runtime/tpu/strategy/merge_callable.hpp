// merge_fn as a lambda (or any callable): merge_fn(strategy, values...) with one parameter per
// merge_call argument: a DistributedValue for a Tensor argument, a PerReplica<S> for a structure S
// (each leaf gathered over the replicas); returning Status (nothing), a Tensor or DistributedValue,
// a structure S (plain: every replica gets it) or a PerReplica<S> (replica r gets component r of each
// leaf), or a Result of any of these; the arity is deduced and checked against the call. Used by the value-returning
// StrategyReplicaContext::merge_call (strategy_replica_context.hpp), which calls it through a
// MergeFn (an InplaceFunction holding a copy of the lambda).
#pragma once
#include "runtime/tpu/replicate/callable_computation.hpp"
#include "per_replica.hpp"
#include "replica_context_merge.hpp"

namespace rt::tpu::detail {

inline Status add_merge_value(const Status& status, MergeResult&) { return status; }
inline Status add_merge_value(const DistributedValue& value, MergeResult& result) { return result.add(value); }
template <class S>
Status add_merge_value(const PerReplica<S>& value, MergeResult& result) {
  for (const DistributedValue& leaf : value.leaves()) RT_RETURN_IF_ERROR(result.add(leaf));
  return Status::ok();
}
template <class S>
  requires nest::is_structure_v<S>
Status add_merge_value(const S& value, MergeResult& result) {
  Status status;
  nest::for_each_leaf(value, [&](const Tensor& leaf) {
    if (status.is_ok()) status = result.add(DistributedValue::plain(leaf));
  });
  return status;
}
template <class T>
Status add_merge_value(const Result<T>& value, MergeResult& result) {
  if (!value) return value.status();
  return add_merge_value(*value, result);
}

// The DistributedValues a merge_fn parameter takes: 1, or a PerReplica<S>'s leaves.
template <class P>
constexpr size_t merge_param_leaves() {
  if constexpr (is_per_replica_v<P>) return remove_cvref_t<P>::kLeaves;
  else return 1;
}

template <class List> struct MergeParams;
template <class First, class... T> struct MergeParams<TypeList<First, T...>> {
  static constexpr bool value = is_same_v<remove_cvref_t<First>, TPUStrategy> &&
                                ((is_same_v<remove_cvref_t<T>, DistributedValue> || is_per_replica_v<T>) && ...);
  static constexpr size_t kLeaves = (size_t{0} + ... + merge_param_leaves<T>());
  using Types = TypeList<remove_cvref_t<T>...>;
  template <size_t I>
  static constexpr size_t offset() {
    constexpr size_t kCounts[] = {merge_param_leaves<T>()..., 0};
    size_t sum = 0;
    for (size_t k = 0; k < I; ++k) sum += kCounts[k];
    return sum;
  }
  template <size_t I>
  static auto argument(Span<const DistributedValue> args) {
    using P = typename TypeAt<I, Types>::type;
    if constexpr (is_per_replica_v<P>) return P(args.data() + offset<I>());
    else return args[offset<I>()];
  }
};

template <class F>
struct MergeCallable {
  using Traits = CallTraits<F>;
  using Params = MergeParams<typename Traits::Params>;
  static_assert(Params::value,
                "merge_fn takes a TPUStrategy& and then one const DistributedValue& (a Tensor argument) or "
                "const PerReplica<S>& (a structure argument) per merge_call argument");
  static constexpr unsigned kArity = Count<typename Traits::Params>::value - 1;
  static constexpr unsigned kLeaves = static_cast<unsigned>(Params::kLeaves);

  template <size_t... I>
  static Status invoke(const F& fn, TPUStrategy& strategy, [[maybe_unused]] Span<const DistributedValue> args,
                       MergeResult& result, Indices<I...>) {
    return add_merge_value(fn(strategy, Params::template argument<I>(args)...), result);
  }
  static Status call(const F& fn, TPUStrategy& strategy, Span<const DistributedValue> args, MergeResult& result) {
    if (args.size() != kLeaves)
      return Status::error(StatusCode::kInvalidArgument, "merge_fn takes {} arguments, merge_call gave it {}", kLeaves,
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
