// outside_compilation(fn, args...): TF's tf.tpu.outside_compilation (TF_BEHAVIOUR.md section 3).
//   - Outside a replicated computation it simply returns fn(args...) (a no-op wrapper), on every board.
//   - Inside one, fn belongs on the host PC, once per calling replica. On the host board the host is
//     this process, so fn runs in-process on the calling core. Off the host board fn crosses the
//     link and runs on the PC in the app's tool, built from the same device sources
//     (outside_cluster.hpp), when it can: a captureless lambda whose arguments are tensors or
//     scalars and whose result is nothing, a Status or a scalar (or a Result of one). Anything else
//     (captures, a function pointer, a tensor result) is UNIMPLEMENTED there, saying why, and every
//     board's build warns where such a callable is given (host_board_only_callable); the named
//     and declared host functions (host_function, host_function_declaration.hpp) serve the rest.
//   - fn must depend on its arguments only, as a TF outside-compiled function depends on its
//     inputs: on the host board it runs in the board's process and sees the board's globals; on
//     every other board it runs in the app's tool on the PC, whose globals are its own (a device
//     global the program set is there at its initial value). Pass what fn needs as an argument.
//   - Calling outside_compilation from inside fn (inside a replicated computation):
//     "Cannot nest outside_compilation clusters" (TF's NotImplementedError, here UNIMPLEMENTED).
// fn may return Status, Result<T>, void or a plain value T; outside_compilation returns Status for
// Status and void, and Result<T> otherwise, so the routing errors above reach the caller.
//
// The named form, host_function(name, text, args, results), is what crosses the link on every
// board: the function is one the host serves (tpu's built-ins format, to_number, print,
// summary_csv and infeed_steps, or the app's own TPU_HOST_FUNCTIONs), it runs on the PC once per
// calling replica, and its errors (unknown function, host
// failure) or a host that never answers come back as a Status. It obeys the same nesting rule and
// counts as a host call.
// Every host call made inside a replicated computation is counted per core (host_call_count), the
// statistic that makes its device<->host transfer visible.
#pragma once
#include "host_function_declaration.hpp"
#include "outside_cluster.hpp"
#include "runtime/link/protocol/host_call.hpp"
#include "runtime/tpu/nest/type_name.hpp"
#include "hal/support/initializer_list.hpp"
#include "runtime/tensor/arena.hpp"
#include "hal/support/result.hpp"
#include "hal/support/utility.hpp"

namespace rt::tpu {

// Where a host function's result goes: a tensor to fill, or text (host_result.hpp).
using HostResult = link::HostResult;

namespace detail {

enum class HostCallRoute : uint8_t {
  kDirect,     // outside a replicated computation: just call
  kInProcess,  // inside one, on the host board: call in-process as the host
  kLink,       // inside one, off the host board: the cluster runs in the app's tool, over the link
};

// Decides how to run the call (or why it cannot run) and enters the outside_compilation scope.
Result<HostCallRoute> enter_outside_compilation();
// While a cluster runs on the PC (in the app's tool), outside_compilation inside it is TF's nesting
// error, as on the board.
class ClusterOnHostScope {
 public:
  ClusterOnHostScope();
  ~ClusterOnHostScope();
  ClusterOnHostScope(const ClusterOnHostScope&) = delete;
  ClusterOnHostScope& operator=(const ClusterOnHostScope&) = delete;
};
void exit_outside_compilation(HostCallRoute route);

template <class R> struct HostCallResult { using type = Result<R>; };
template <> struct HostCallResult<void> { using type = Status; };
template <> struct HostCallResult<Status> { using type = Status; };
template <class T> struct HostCallResult<Result<T>> { using type = Result<T>; };

}  // namespace detail

// Host calls the calling core made from inside replicated computations.
uint64_t host_call_count();

// Calls the host function `name` over the link (see above).
Status host_function(StringView name, StringView text_argument, Span<const Tensor> arguments,
                     Span<const HostResult> results, uint64_t timeout_ns = link::kDefaultHostCallTimeoutNs);

// The host function `name` with no results, without waiting for it (TF's outside compilation with no
// outputs: the device sends and goes on): metrics, logs, progress. The tensors are copied before it
// returns; the host function's error, if any, comes back from this core's next host call (or
// settle_host_functions(), or the end of the core's program, which fails with it). Up to 4 such
// calls per core are in flight (link::Endpoint::kMaxDetachedCalls); an error that has arrived by
// the next no-wait call fails that call.
Status host_function_no_wait(StringView name, StringView text_argument, Span<const Tensor> arguments,
                             uint64_t timeout_ns = link::kDefaultHostCallTimeoutNs);
// Waits for this core's host_function_no_wait calls in flight, if any; the first error.
Status settle_host_functions();

// The host function `name` returning one tensor, allocated in `arena` with the dtype and shape the
// host must send back (TF's outside_compilation outputs have static shapes too):
//   Tensor y = RT_TRY(host_function(replica.arena(), "scale", {x}, DType::kF32, x.shape));
Result<Tensor> host_function(Arena& arena, StringView name, std::initializer_list<Tensor> arguments, DType dtype,
                             const Shape& shape, StringView text_argument = "");

namespace detail {

// What crosses the link: tensor or scalar arguments; nothing, a Status or a scalar back.
static_assert(kHostFunctionTimeoutNs == link::kDefaultHostCallTimeoutNs, "typed calls wait as long as named ones");
template <class R> struct LinkResult { static constexpr bool kCrosses = false; using Scalar = void; };
template <> struct LinkResult<void> { static constexpr bool kCrosses = true; using Scalar = void; };
template <> struct LinkResult<Status> { static constexpr bool kCrosses = true; using Scalar = void; };
template <HasDType T> struct LinkResult<T> { static constexpr bool kCrosses = true; using Scalar = T; };
template <HasDType T> struct LinkResult<Result<T>> { static constexpr bool kCrosses = true; using Scalar = T; };

// A captureless lambda: the tool can make its own (it is the same type in both builds).
template <class Fn>
inline constexpr bool stateless_callable_v = __is_class(Fn) && __is_empty(Fn) && __is_constructible(Fn);

template <class Fn, class... Args>
inline constexpr bool crosses_link_v =
    stateless_callable_v<Fn> && (is_host_parameter_type_v<Args> && ...) &&
    LinkResult<remove_cvref_t<decltype(static_cast<Fn& (*)()>(nullptr)()(static_cast<Args (*)()>(nullptr)()...))>>::kCrosses;

// Why a callable cannot cross the link, for the UNIMPLEMENTED text.
template <class Fn, class... Args>
constexpr const char* why_not_across() {
  if constexpr (!stateless_callable_v<Fn>)
    return "only a lambda without captures can run on the PC (the tool makes its own; captures live on the board)";
  else if constexpr (!(is_host_parameter_type_v<Args> && ...))
    return "its arguments must be tensors or scalars";
  else
    return "its result must be nothing, a Status or a scalar (a tensor result needs its shape: declare a host "
           "function, host_function_declaration.hpp)";
}

// The text of the UNIMPLEMENTED error for a callable that cannot cross (names the replica and board).
Status outside_cluster_refused(StringView cluster, const char* why);

// Called (at no cost) where a callable cannot cross the link, so that every board's build says so:
// a compiler warning on the host board too, where the app runs it in-process and would otherwise
// learn only on a QEMU or Pi board, from the UNIMPLEMENTED at the call.
template <class Fn>
[[deprecated("outside_compilation: this callable cannot run on the PC (it captures, takes other than tensors and "
             "scalars, or returns a tensor): it runs on the host board and outside replicated computations only; "
             "inside a replicated computation on a QEMU or Pi board the call returns UNIMPLEMENTED")]]
constexpr void host_board_only_callable() {}  // a template: only the branch that calls it warns

// The cluster `Fn` taking Args: its key (the lambda's type name) and its entry in the app's tool,
// registered at start-up by every build that instantiates it (the tool's registration counts).
template <class Fn, class... Args>
struct OutsideCluster {
  using Returned = remove_cvref_t<decltype(Fn()(static_cast<Args (*)()>(nullptr)()...))>;
  using Scalar = typename LinkResult<Returned>::Scalar;

  static StringView key() { return nest::type_name<Fn>(); }

  template <class T>
  static T argument(const Tensor& tensor) {
    if constexpr (is_same_v<T, Tensor>) return tensor;
    else return *reinterpret_cast<const T*>(tensor.data);
  }
  template <class T>
  static Status check_argument(const Tensor& tensor, size_t index) {
    if constexpr (!is_same_v<T, Tensor>)
      if (tensor.dtype != kDTypeOf<T> || tensor.num_elements() != 1)
        return Status::error(StatusCode::kInvalidArgument,
                             "outside_compilation cluster {}: argument {} must be a {} scalar, the call sent {} {}",
                             key(), index, dtype_name(kDTypeOf<T>), dtype_name(tensor.dtype), tensor.shape.sizes());
    return Status::ok();
  }
  template <size_t... I>
  static Status run(Span<const Tensor> arguments, Tensor& result, IndexSequence<I...>) {
    Status checked;
    ((checked = checked.is_ok() ? check_argument<remove_cvref_t<Args>>(arguments[I], I) : checked), ...);
    RT_RETURN_IF_ERROR(checked);
    const Fn fn{};
    if constexpr (is_same_v<Returned, void>) {
      result.data = nullptr;
      fn(argument<remove_cvref_t<Args>>(arguments[I])...);
      return Status::ok();
    } else if constexpr (is_same_v<Returned, Status>) {
      result.data = nullptr;
      return fn(argument<remove_cvref_t<Args>>(arguments[I])...);
    } else {
      const Result<Scalar> value = fn(argument<remove_cvref_t<Args>>(arguments[I])...);
      if (!value) return value.status();
      result.dtype = kDTypeOf<Scalar>;
      result.shape = Shape();
      *reinterpret_cast<Scalar*>(result.data) = *value;
      return Status::ok();
    }
  }
  static Status entry(Span<const Tensor> arguments, Tensor& result) {
    const ClusterOnHostScope on_host;
    if (arguments.size() != sizeof...(Args))
      return Status::error(StatusCode::kInvalidArgument, "outside_compilation cluster {} takes {} arguments, the call sent {}",
                           key(), sizeof...(Args), arguments.size());
    return run(arguments, result, make_index_sequence<sizeof...(Args)>{});
  }
  static inline const bool registered = register_outside_cluster(key(), &entry);
};

// The call over the link: the cluster's name, its tensors, and its scalar result if it has one.
template <class Fn, class... Args>
using AcrossResult = conditional_t<is_same_v<typename OutsideCluster<Fn, Args...>::Scalar, void>, Status,
                                   Result<typename OutsideCluster<Fn, Args...>::Scalar>>;

template <class Fn, class... Args>
AcrossResult<Fn, Args...> call_across(const Args&... args) {
  using Cluster = OutsideCluster<Fn, Args...>;
  using Scalar = typename Cluster::Scalar;
  (void)Cluster::registered;  // the tool's build registers the entry this names
  FixedString<512> name;
  name.append(kOutsideClusterPrefix);
  name.append(Cluster::key());
  if (name.truncated())
    return Status::error(StatusCode::kInvalidArgument, "outside_compilation: the cluster's name is too long: {}", name.view());
  return call_host_function<Scalar>(name.view(), args...);
}

}  // namespace detail

template <class Fn, class... Args>
auto outside_compilation(Fn&& fn, Args&&... args) ->
    typename detail::HostCallResult<remove_cvref_t<decltype(fn(static_cast<Args&&>(args)...))>>::type {
  using Returned = remove_cvref_t<decltype(fn(static_cast<Args&&>(args)...))>;
  using Out = typename detail::HostCallResult<Returned>::type;
  if constexpr (!detail::crosses_link_v<remove_cvref_t<Fn>, remove_cvref_t<Args>...>) detail::host_board_only_callable<Fn>();
  Result<detail::HostCallRoute> route = detail::enter_outside_compilation();
  if (!route) return Out(route.status());
  if (*route == detail::HostCallRoute::kLink) {
    using F = remove_cvref_t<Fn>;
    if constexpr (detail::crosses_link_v<F, remove_cvref_t<Args>...>) {
      return Out(detail::call_across<F, remove_cvref_t<Args>...>(args...));
    } else {
      return Out(detail::outside_cluster_refused(nest::type_name<F>(),
                                                 detail::why_not_across<F, remove_cvref_t<Args>...>()));
    }
  }
  if constexpr (is_same_v<Returned, void>) {
    fn(static_cast<Args&&>(args)...);
    detail::exit_outside_compilation(*route);
    return Status::ok();
  } else {
    Out out = fn(static_cast<Args&&>(args)...);
    detail::exit_outside_compilation(*route);
    return out;
  }
}

}  // namespace rt::tpu
