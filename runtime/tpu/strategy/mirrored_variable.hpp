// MirroredVariable and what TPUStrategy::update runs on it (TF's extended.update(var, fn, args,
// group)): a variable with one copy per replica, each in its replica's arena, and the update function
// as the runtime calls it on every copy.
//   - fn is a lambda (StrategyReplicaContext&, const Tensor& variable, const Tensor&... args) changing
//     the replica's copy in place; it returns Status (nothing), or a Tensor / Result<Tensor> (TF's
//     fn result: update then returns them merged, TF's update_regroup).
//   - an argument is a Tensor (plain: every copy gets it), a DistributedValue or another
//     MirroredVariable (the copy on the device being updated: TF's select_device_mirrored); a
//     PerReplica argument is TF's TypeError (values must be mirrored).
//   - group_false as the last argument is TF's group=False (contrib: grouped=False): update returns
//     the copies' results one by one (UpdateResults, replica order) instead of one Mirrored value.
#pragma once
#include "runtime/tpu/mesh/pod_membership.hpp"
#include "strategy_replica_context.hpp"

namespace rt::tpu {

class TPUStrategy;

// A variable mirrored on every replica: copy r lives in replica r's arena.
struct MirroredVariable {
  DistributedValue copies;
  // The strategy that created it (create_mirrored_variable); colocate_vars_with checks it.
  const TPUStrategy* strategy = nullptr;

  const Tensor& copy(unsigned replica) const { return copies.component(replica); }
  // TF's read_value() in cross-replica context: the copy on this host, i.e. this board's first
  // replica's (replica 0's on a single board; in a pod of boards the other boards' copies live there).
  const Tensor& read_value() const {
    return copies.component(pod_membership().first_local_replica(copies.num_components()));
  }
};

// TF's group=False for update and update_non_slot.
struct GroupFalse {};
inline constexpr GroupFalse group_false{};

// An ungrouped update's results: fn's result on each copy, in replica order (TF's tuple of local
// results); update_non_slot's single result wrapped the same way (one value).
struct UpdateResults {
  Tensor values[kMaxReplicas];
  unsigned count = 0;

  unsigned size() const { return count; }
  const Tensor& operator[](unsigned index) const { return values[index]; }
  Span<const Tensor> span() const { return Span<const Tensor>(values, count); }
};

// update()'s function, as the runtime calls it: changes `variable` (the replica's copy) in place.
using UpdateFunction = InplaceFunction<Status(StrategyReplicaContext& context, const Tensor& variable, ReplicaArgs args)>;
// The same with fn's result (if any) added to `outputs`.
using UpdateBody =
    InplaceFunction<Status(StrategyReplicaContext& context, const Tensor& variable, ReplicaArgs args,
                           ReplicaOutputs& outputs)>;

namespace detail {
// update's lambda: (StrategyReplicaContext&, const Tensor& variable, const Tensor&... args) -> R.
template <class F>
struct UpdateCallable {
  static constexpr unsigned kArity = Count<typename CallTraits<F>::Params>::value - 2;
  using Returned = remove_cvref_t<typename ReturnedValue<remove_cvref_t<typename CallTraits<F>::Return>>::type>;
  static constexpr bool kReturnsValue = !is_same_v<Returned, Status>;
  static_assert(!kReturnsValue || is_same_v<Returned, Tensor>,
                "an update function returns Status, a Tensor or a Result<Tensor>");

  // What call() returns: Status for a Status-returning fn, else Result<Tensor>.
  using Value = conditional_t<kReturnsValue, Result<Tensor>, Status>;

  template <size_t... I>
  static Value invoke(const F& fn, StrategyReplicaContext& context, const Tensor& variable,
                      [[maybe_unused]] ReplicaArgs args, Indices<I...>) {  // unused when fn takes no argument
    return Value(fn(context, variable, args[I]...));
  }
  static Value call(const F& fn, StrategyReplicaContext& context, const Tensor& variable, ReplicaArgs args) {
    if (args.size() != kArity)
      return Value(Status::error(StatusCode::kInvalidArgument, "update: the function takes {} arguments besides the "
                                 "variable, update gave it {}", kArity, args.size()));
    return invoke(fn, context, variable, args, typename MakeIndices<kArity>::type{});
  }
};

// One argument of update(var, fn, args...) as a ValueRef (group_false adds none).
inline void add_update_argument(const Tensor& value, ValueRef* refs, unsigned& count) { refs[count++] = value; }
inline void add_update_argument(const DistributedValue& value, ValueRef* refs, unsigned& count) { refs[count++] = value; }
inline void add_update_argument(const MirroredVariable& value, ValueRef* refs, unsigned& count) {
  refs[count++] = value.copies;
}
inline void add_update_argument(const GroupFalse&, ValueRef*, unsigned&) {}

template <class A>
inline constexpr bool is_update_argument_v =
    is_same_v<remove_cvref_t<A>, Tensor> || is_same_v<remove_cvref_t<A>, DistributedValue> ||
    is_same_v<remove_cvref_t<A>, MirroredVariable> || is_same_v<remove_cvref_t<A>, GroupFalse>;
template <class... A>
inline constexpr unsigned kGroupFalseCount = (0u + ... + unsigned{is_same_v<remove_cvref_t<A>, GroupFalse>});
// Whether group_false is absent, or given once and last.
template <class... A>
constexpr bool group_false_is_last() {
  constexpr bool flags[] = {is_same_v<remove_cvref_t<A>, GroupFalse>..., false};
  unsigned count = 0;
  for (bool flag : flags) count += flag ? 1 : 0;
  return count == 0 || (count == 1 && flags[sizeof...(A) - 1]);
}
}  // namespace detail

// A Status-returning update lambda as an UpdateFunction.
template <class F>
UpdateFunction update_function_of(F fn) {
  static_assert(!detail::UpdateCallable<F>::kReturnsValue, "update_function_of takes a Status-returning function");
  return [fn](StrategyReplicaContext& context, const Tensor& variable, ReplicaArgs args) {
    return detail::UpdateCallable<F>::call(fn, context, variable, args);
  };
}

// Any update lambda as an UpdateBody: its result, if any, is the replica's output.
template <class F>
UpdateBody update_body_of(F fn) {
  return [fn](StrategyReplicaContext& context, const Tensor& variable, ReplicaArgs args, ReplicaOutputs& outputs) {
    return detail::add_outputs(detail::UpdateCallable<F>::call(fn, context, variable, args), outputs);
  };
}

}  // namespace rt::tpu
