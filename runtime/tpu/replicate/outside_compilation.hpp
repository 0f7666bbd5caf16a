// outside_compilation(fn, args...): TF's tf.tpu.outside_compilation (TF_BEHAVIOUR.md section 3).
//   - Outside a replicated computation it simply returns fn(args...) (a no-op wrapper), on every board.
//   - Inside one, fn belongs on the host PC, once per calling replica. On the host board the host is
//     this process, so fn runs in-process on the calling core. Off the host board this callable form
//     is UNIMPLEMENTED, because device code cannot ship a C++ lambda to the PC; use the named form
//     host_function(name, ...) instead, which the app's own host half (host/*.cpp with
//     TPU_HOST_FUNCTION, see host-tools/lib/functions/app_host.hpp) or tpu's built-ins serve on every board.
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
#include "runtime/link/protocol/host_call.hpp"
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
};

// Decides how to run the call (or why it cannot run) and enters the outside_compilation scope.
Result<HostCallRoute> enter_outside_compilation();
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
// settle_host_functions(), or the end of the core's program, which fails with it).
Status host_function_no_wait(StringView name, StringView text_argument, Span<const Tensor> arguments,
                             uint64_t timeout_ns = link::kDefaultHostCallTimeoutNs);
// Waits for this core's host_function_no_wait call in flight, if any; its outcome.
Status settle_host_functions();

// The host function `name` returning one tensor, allocated in `arena` with the dtype and shape the
// host must send back (TF's outside_compilation outputs have static shapes too):
//   Tensor y = RT_TRY(host_function(replica.arena(), "scale", {x}, DType::kF32, x.shape));
Result<Tensor> host_function(Arena& arena, StringView name, std::initializer_list<Tensor> arguments, DType dtype,
                             const Shape& shape, StringView text_argument = "");

template <class Fn, class... Args>
auto outside_compilation(Fn&& fn, Args&&... args) ->
    typename detail::HostCallResult<remove_cvref_t<decltype(fn(static_cast<Args&&>(args)...))>>::type {
  using Returned = remove_cvref_t<decltype(fn(static_cast<Args&&>(args)...))>;
  using Out = typename detail::HostCallResult<Returned>::type;
  Result<detail::HostCallRoute> route = detail::enter_outside_compilation();
  if (!route) return Out(route.status());
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
