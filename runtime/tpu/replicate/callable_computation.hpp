// Computations written as lambdas (or any callable): the arity TF checks is deduced from the
// callable's parameters, and what it returns becomes the replica's outputs.
//
//   auto step = [](ReplicaContext& replica, const Tensor& x) -> Result<Tensor> { ... };
//   Computation c = computation_of("step", step);      // Signature{1}: one tensor argument
//
// Parameters: an optional first ReplicaContext&, then one Tensor (or const Tensor&) per argument.
// Returns: Status (no outputs: TF's NoOp), Tensor or Result<Tensor> (one output),
// Array<Tensor, N> or Result<Array<Tensor, N>> (N outputs, in order).
// The callable is copied into the Computation's InplaceFunction (hal/support/inplace_function.hpp:
// at most 128 bytes, trivially copyable: capture values, pointers or references to things that
// outlive the call), so each replica runs its own copy and a replica that outlives a timed-out
// replicate never calls into a dead stack frame.
#pragma once
#include "computation.hpp"
#include "replica_context.hpp"
#include "hal/support/array.hpp"
#include "hal/support/inplace_function.hpp"
#include "hal/support/result.hpp"
#include "hal/support/type_traits.hpp"

namespace rt::tpu {

namespace detail {

template <class... T> struct TypeList {};

template <class F> struct CallTraits : CallTraits<decltype(&F::operator())> {};
template <class C, class R, class... A> struct CallTraits<R (C::*)(A...) const> {
  using Return = R;
  using Params = TypeList<A...>;
};
template <class C, class R, class... A> struct CallTraits<R (C::*)(A...)> : CallTraits<R (C::*)(A...) const> {};
template <class R, class... A> struct CallTraits<R (*)(A...)> {
  using Return = R;
  using Params = TypeList<A...>;
};
template <class R, class... A> struct CallTraits<R(A...)> : CallTraits<R (*)(A...)> {};

template <class List, class Context> struct TakesContext : false_type {};
template <class First, class... Rest, class Context>
struct TakesContext<TypeList<First, Rest...>, Context> : is_same<remove_cvref_t<First>, Context> {};

template <class List> struct Count;
template <class... T> struct Count<TypeList<T...>> { static constexpr unsigned value = sizeof...(T); };

template <class List, bool kDropFirst> struct TensorParams;
template <class... T> struct TensorParams<TypeList<T...>, false> {
  static constexpr bool value = (is_same_v<remove_cvref_t<T>, Tensor> && ...);
};
template <class First, class... T> struct TensorParams<TypeList<First, T...>, true> {
  static constexpr bool value = (is_same_v<remove_cvref_t<T>, Tensor> && ...);
};

template <size_t... I> struct Indices {};
template <size_t N, size_t... I> struct MakeIndices : MakeIndices<N - 1, N - 1, I...> {};
template <size_t... I> struct MakeIndices<0, I...> { using type = Indices<I...>; };

// The callable's returned value appended to `outputs`.
inline Status add_outputs(const Status& status, ReplicaOutputs&) { return status; }
inline Status add_outputs(const Tensor& value, ReplicaOutputs& outputs) { return outputs.add(value); }
template <size_t N>
Status add_outputs(const Array<Tensor, N>& values, ReplicaOutputs& outputs) {
  for (const Tensor& value : values) RT_RETURN_IF_ERROR(outputs.add(value));
  return Status::ok();
}
template <class T>
Status add_outputs(const Result<T>& result, ReplicaOutputs& outputs) {
  if (!result) return result.status();
  return add_outputs(*result, outputs);
}

template <class F, bool kContext, class Context, size_t... I>
Status invoke(const F& fn, Context& context, ReplicaArgs args, ReplicaOutputs& outputs, Indices<I...>) {
  if constexpr (kContext) return add_outputs(fn(context, args[I]...), outputs);
  else return add_outputs(fn(args[I]...), outputs);
}

// A callable run per replica with `Context` (ReplicaContext for replicate, StrategyReplicaContext
// for TPUStrategy::run) as its optional first parameter.
template <class F, class Context>
struct ReplicaFunction {
  using Traits = CallTraits<F>;
  static constexpr bool kContext = TakesContext<typename Traits::Params, Context>::value;
  static constexpr unsigned kArity = Count<typename Traits::Params>::value - (kContext ? 1 : 0);
  static_assert(TensorParams<typename Traits::Params, kContext>::value,
                "a replica function takes an optional context (ReplicaContext& for replicate, "
                "StrategyReplicaContext& for TPUStrategy::run) and then Tensor (or const Tensor&) parameters");
  static_assert(kArity <= kMaxReplicaInputs, "a replica function takes at most kMaxReplicaInputs tensors");

  static Status call(const F& fn, Context& context, ReplicaArgs args, ReplicaOutputs& outputs) {
    // The caller checked the argument count against kArity (TF's arity texts) before any replica ran.
    if (args.size() != kArity)
      return Status::error(StatusCode::kInternal, "a function taking {} tensors got {}", kArity, args.size());
    return invoke<F, kContext>(fn, context, args, outputs, typename MakeIndices<kArity>::type{});
  }

  // `fn` as the runtime calls it: (Context&, ReplicaArgs, ReplicaOutputs&) -> Status, holding a copy of fn.
  static InplaceFunction<Status(Context&, ReplicaArgs, ReplicaOutputs&)> body(const F& fn) {
    return [fn](Context& context, ReplicaArgs args, ReplicaOutputs& outputs) { return call(fn, context, args, outputs); };
  }
};

}  // namespace detail

// The computation `fn` under `name`, its signature deduced (`signature` overrides it, e.g. for
// defaults, *args or argument names in TF's arity texts).
template <class F>
Computation computation_of(StringView name, F fn, const Signature* signature = nullptr) {
  Computation computation;
  computation.name = name;
  computation.fn = detail::ReplicaFunction<F, ReplicaContext>::body(fn);
  computation.signature = signature ? *signature : Signature{detail::ReplicaFunction<F, ReplicaContext>::kArity};
  return computation;
}

}  // namespace rt::tpu
