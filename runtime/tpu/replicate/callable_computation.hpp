// Computations written as lambdas (or any callable): the arity TF checks is deduced from the
// callable's parameters, and what it returns becomes the replica's outputs.
//
//   auto step = [](ReplicaContext& replica, const Tensor& x) -> Result<Tensor> { ... };
//   Computation c = computation_of("step", step);      // Signature{1}: one tensor argument
//
// Parameters: an optional first ReplicaContext&, then one structure of tensors per argument (a
// Tensor, or any structure nest.hpp knows: an aggregate such as struct Batch { Tensor x, y; }, an
// Array). The runtime hands a replica its arguments as a flat list of tensors; a structure parameter
// takes as many as it has leaves, in flatten order (so the deduced Signature counts leaves: a
// function taking (const Tensor&, const Batch&) takes 3 tensors).
// Returns: Status (no outputs: TF's NoOp), or a structure or Result<structure>: its leaves are the
// outputs, in flatten order (a Tensor is one output, Array<Tensor, N> N of them).
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
#include "runtime/tpu/nest/nest.hpp"

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

template <class List, bool kDropFirst> struct StructureParams;
template <class... T> struct StructureParams<TypeList<T...>, false> {
  static constexpr bool value = (nest::is_structure_v<remove_cvref_t<T>> && ...);
  static constexpr size_t kLeaves = (size_t{0} + ... + nest::leaf_count_v<remove_cvref_t<T>>);
};
template <class First, class... T> struct StructureParams<TypeList<First, T...>, true> : StructureParams<TypeList<T...>, false> {};

template <size_t I, class List> struct TypeAt;
template <class First, class... Rest> struct TypeAt<0, TypeList<First, Rest...>> { using type = First; };
template <size_t I, class First, class... Rest>
struct TypeAt<I, TypeList<First, Rest...>> : TypeAt<I - 1, TypeList<Rest...>> {};

// The parameters of a callable as structures: parameter I's leaves start at leaf offset<I>() of the
// flat argument list.
template <class List, bool kDropFirst> struct ParamsOf;
template <class... T> struct ParamsOf<TypeList<T...>, false> {
  using Types = TypeList<remove_cvref_t<T>...>;
  template <size_t I>
  static constexpr size_t offset() {
    constexpr size_t kLeaves[] = {nest::leaf_count_v<remove_cvref_t<T>>..., 0};
    size_t sum = 0;
    for (size_t k = 0; k < I; ++k) sum += kLeaves[k];
    return sum;
  }
  template <size_t I>
  static auto argument(ReplicaArgs args) {
    using P = typename TypeAt<I, Types>::type;
    constexpr size_t kOffset = offset<I>();
    if constexpr (nest::is_leaf_v<P>) return args[kOffset];
    else return nest::build<P>([&](size_t leaf) { return args[kOffset + leaf]; });
  }
};
template <class First, class... T> struct ParamsOf<TypeList<First, T...>, true> : ParamsOf<TypeList<T...>, false> {};

template <size_t... I> struct Indices {};
template <size_t N, size_t... I> struct MakeIndices : MakeIndices<N - 1, N - 1, I...> {};
template <size_t... I> struct MakeIndices<0, I...> { using type = Indices<I...>; };

// The callable's returned value appended to `outputs`: a structure's leaves, in flatten order.
inline Status add_outputs(const Status& status, ReplicaOutputs&) { return status; }
template <class S>
  requires nest::is_structure_v<S>
Status add_outputs(const S& value, ReplicaOutputs& outputs) {
  Status status;
  nest::for_each_leaf(value, [&](const Tensor& leaf) {
    if (status.is_ok()) status = outputs.add(leaf);
  });
  return status;
}
template <class T>
Status add_outputs(const Result<T>& result, ReplicaOutputs& outputs) {
  if (!result) return result.status();
  return add_outputs(*result, outputs);
}

// What a callable returns, without its Result: Status, or the structure of its outputs.
template <class R> struct ReturnedValue { using type = R; };
template <class T> struct ReturnedValue<Result<T>> { using type = T; };

template <class F, bool kContext, class Params, class Context, size_t... I>
Status invoke(const F& fn, Context& context, [[maybe_unused]] ReplicaArgs args, ReplicaOutputs& outputs,
              Indices<I...>) {
  if constexpr (kContext) return add_outputs(fn(context, Params::template argument<I>(args)...), outputs);
  else return add_outputs(fn(Params::template argument<I>(args)...), outputs);
}

// A callable run per replica with `Context` (ReplicaContext for replicate, StrategyReplicaContext
// for TPUStrategy::run) as its optional first parameter.
template <class F, class Context>
struct ReplicaFunction {
  using Traits = CallTraits<F>;
  static constexpr bool kContext = TakesContext<typename Traits::Params, Context>::value;
  static constexpr unsigned kArity = Count<typename Traits::Params>::value - (kContext ? 1 : 0);
  using Params = ParamsOf<typename Traits::Params, kContext>;
  using Output = remove_cvref_t<typename ReturnedValue<remove_cvref_t<typename Traits::Return>>::type>;
  static_assert(StructureParams<typename Traits::Params, kContext>::value,
                "a replica function takes an optional context (ReplicaContext& for replicate, "
                "StrategyReplicaContext& for TPUStrategy::run) and then structures of tensors (Tensor, "
                "const Batch&, ...: nest.hpp)");
  // The tensors the function takes: its structures' leaves.
  static constexpr unsigned kLeaves =
      static_cast<unsigned>(StructureParams<typename Traits::Params, kContext>::kLeaves);
  static_assert(kLeaves <= kMaxReplicaInputs, "a replica function takes at most kMaxReplicaInputs tensors");

  static Status call(const F& fn, Context& context, ReplicaArgs args, ReplicaOutputs& outputs) {
    // The caller checked the argument count against the signature (TF's arity texts) before any replica ran.
    if (args.size() != kLeaves)
      return Status::error(StatusCode::kInternal, "a function taking {} tensors got {}", kLeaves, args.size());
    return invoke<F, kContext, Params>(fn, context, args, outputs, typename MakeIndices<kArity>::type{});
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
  computation.signature = signature ? *signature : Signature{detail::ReplicaFunction<F, ReplicaContext>::kLeaves};
  return computation;
}

}  // namespace rt::tpu
