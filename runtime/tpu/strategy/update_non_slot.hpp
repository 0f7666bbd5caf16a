// How TPUStrategy::update_non_slot calls its function (contrib's update_non_slot(colocate_with, fn,
// *args, grouped=True)): fn(args...) once, with Tensors, returning Status, a Tensor or a
// Result<Tensor>. update_non_slot gives back Status for a Status-returning fn, else Result<Tensor>
// (TF returns fn's result), or with group_false Result<UpdateResults> holding the one result (TF wraps
// every leaf of an ungrouped result in a list: [result]).
#pragma once
#include "mirrored_variable.hpp"

namespace rt::tpu::detail {

template <class F>
struct NonSlotCallable {
  using Params = typename CallTraits<F>::Params;
  static constexpr unsigned kArity = Count<Params>::value;
  using Raw = remove_cvref_t<typename ReturnedValue<remove_cvref_t<typename CallTraits<F>::Return>>::type>;
  static constexpr bool kReturnsValue = !is_same_v<Raw, Status>;
  static_assert(!kReturnsValue || is_same_v<Raw, Tensor>,
                "update_non_slot's fn returns Status, a Tensor or a Result<Tensor>");

  template <bool kUngrouped>
  using Returned = conditional_t<!kReturnsValue, Status, conditional_t<kUngrouped, Result<UpdateResults>, Result<Tensor>>>;

  template <size_t... I>
  static auto invoke(const F& fn, [[maybe_unused]] Span<const Tensor* const> args, Indices<I...>) {
    return fn(*args[I]...);
  }

  template <bool kUngrouped>
  static Returned<kUngrouped> call(const F& fn, Span<const Tensor* const> args) {
    using Out = Returned<kUngrouped>;
    if (args.size() != kArity)
      return Out(invalid_argument("update_non_slot: the function takes {} arguments, update_non_slot gave it {}",
                                  kArity, args.size()));
    if constexpr (!kReturnsValue) {
      return invoke(fn, args, typename MakeIndices<kArity>::type{});
    } else {
      Result<Tensor> value(invoke(fn, args, typename MakeIndices<kArity>::type{}));
      if constexpr (!kUngrouped) {
        return value;
      } else {
        if (!value) return Out(value.status());
        UpdateResults wrapped;
        wrapped.values[0] = *value;
        wrapped.count = 1;
        return Out(wrapped);
      }
    }
  }
};

inline void add_non_slot_argument(const Tensor& value, const Tensor** tensors, unsigned& count) {
  tensors[count++] = &value;
}
inline void add_non_slot_argument(const GroupFalse&, const Tensor**, unsigned&) {}

}  // namespace rt::tpu::detail
