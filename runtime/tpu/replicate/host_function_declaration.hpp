// A host function declared once, by name and typed signature, in a header both halves of an app
// include (outside compilation's named form with the compiler checking both ends):
//
//   // myapp/host_api.hpp
//   #include "runtime/tpu/replicate/host_function_declaration.hpp"
//   inline constexpr rt::tpu::HostFunctionDeclaration<"scale", rt::Tensor(rt::Tensor, float)> scale;
//   inline constexpr rt::tpu::HostFunctionDeclaration<"count_above", int32_t(rt::Tensor, float)> count_above;
//
//   // device half: a call that does not match the declaration does not compile
//   Tensor y = RT_TRY(scale(arena, {DType::kF32, x.shape}, x, 2.0f));   // a tensor result: its spec
//   int32_t n = RT_TRY(count_above(x, 0.5f));                           // a scalar result
//
//   // host half (host-tools/lib/functions/typed_host_function.hpp): the implementation's parameters
//   // must be the declaration's (a tensor as const tpu::HostTensor&, scalars as themselves)
//   TPU_HOST_FUNCTION_OF(scale, [](const tpu::HostTensor& x, float factor) { ... return tpu::HostTensor; });
//
// Parameters are tensors (rt::Tensor) or scalars of a type with a DType (float, int32_t, ...); a
// scalar travels as a scalar tensor of its dtype, never as text. The result is void (Status), a
// scalar, or a tensor whose dtype and shape the caller gives (TF's outside compilation outputs have
// static shapes). The call goes over the link like host_function(name, ...) on every board: its
// errors (a host that does not answer, a failing function, a name the host half does not serve)
// come back as the call's Status.
#pragma once
#include "hal/support/result.hpp"
#include "hal/support/string_view.hpp"
#include "hal/support/type_traits.hpp"
#include "runtime/link/protocol/host_result.hpp"
#include "runtime/tensor/arena.hpp"

namespace rt::tpu {

// A function name as a template argument.
template <size_t N>
struct HostFunctionName {
  char text[N] = {};
  constexpr HostFunctionName(const char (&name)[N]) {  // NOLINT: implicit, from a string literal
    for (size_t i = 0; i < N; ++i) text[i] = name[i];
  }
  constexpr StringView view() const { return StringView(text, N - 1); }
};

// What a host function parameter or result may be.
template <class T>
inline constexpr bool is_host_tensor_type_v = is_same_v<remove_cvref_t<T>, Tensor>;
template <class T>
inline constexpr bool is_host_scalar_type_v = HasDType<remove_cvref_t<T>>;
template <class T>
inline constexpr bool is_host_parameter_type_v = is_host_tensor_type_v<T> || is_host_scalar_type_v<T>;

// The dtype and shape of a tensor result.
struct TensorSpec {
  DType dtype = DType::kF32;
  Shape shape;
};

// The link call every declared function makes (outside_compilation.hpp's named form); defined in
// the device runtime, never called by a host half.
Status host_function(StringView name, StringView text_argument, Span<const Tensor> arguments,
                     Span<const link::HostResult> results, uint64_t timeout_ns);

// How long a typed call waits for the host (the link's default, link::kDefaultHostCallTimeoutNs).
inline constexpr uint64_t kHostFunctionTimeoutNs = 30000ull * 1000000ull;

namespace detail {
// Argument k as a tensor: a tensor as it is, a scalar as a scalar tensor over its own storage.
template <class T>
Tensor host_argument(const T& value) {
  if constexpr (is_host_tensor_type_v<T>) return value;
  else return Tensor::contiguous(kDTypeOf<T>, Shape(), const_cast<T*>(&value));
}

// Host function `name` called with `args` (tensors; scalars as scalar tensors), returning nothing
// (a Status) or a scalar R (a Result<R>): what declared functions and outside_compilation's
// clusters send.
template <class R, class... Args>
conditional_t<is_same_v<R, void>, Status, Result<R>> call_host_function(StringView name, const Args&... args) {
  const Tensor tensors[] = {host_argument(args)..., Tensor()};
  const Span<const Tensor> arguments(tensors, sizeof...(Args));
  if constexpr (is_same_v<R, void>) {
    return host_function(name, "", arguments, {}, kHostFunctionTimeoutNs);
  } else {
    R value{};
    const link::HostResult into[] = {link::HostResult::tensor(Tensor::contiguous(kDTypeOf<R>, Shape(), &value))};
    RT_RETURN_IF_ERROR(host_function(name, "", arguments, into, kHostFunctionTimeoutNs));
    return value;
  }
}
}  // namespace detail

template <HostFunctionName kName, class Signature>
struct HostFunctionDeclaration;

template <HostFunctionName kName, class R, class... Params>
struct HostFunctionDeclaration<kName, R(Params...)> {
  static_assert((is_host_parameter_type_v<Params> && ...),
                "a host function's parameters are tensors (rt::Tensor) or scalars with a DType (float, int32_t, ...)");
  static_assert(is_same_v<R, void> || is_host_tensor_type_v<R> || is_host_scalar_type_v<R>,
                "a host function returns void, a tensor (rt::Tensor) or a scalar with a DType");
  using Result = R;
  static constexpr unsigned kArity = sizeof...(Params);

  static constexpr StringView name() { return kName.view(); }

  // A scalar or void result.
  auto operator()(const remove_cvref_t<Params>&... args) const
    requires(!is_host_tensor_type_v<R>)
  {
    return detail::call_host_function<R>(name(), args...);
  }

  // A tensor result, allocated in `arena` as `spec` says (the host must send exactly that).
  rt::Result<Tensor> operator()(Arena& arena, const TensorSpec& spec, const remove_cvref_t<Params>&... args) const
    requires(is_host_tensor_type_v<R>)
  {
    const Tensor arguments[] = {detail::host_argument(args)..., Tensor()};
    const Tensor out = RT_TRY(arena.allocate_tensor(spec.dtype, spec.shape, "a host function's result"));
    const link::HostResult result[] = {link::HostResult::tensor(out)};
    RT_RETURN_IF_ERROR(host_function(name(), "", Span<const Tensor>(arguments, kArity), result, kHostFunctionTimeoutNs));
    return out;
  }
};

}  // namespace rt::tpu
