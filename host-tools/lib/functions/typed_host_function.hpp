// The host half of a declared host function (runtime/tpu/replicate/host_function_declaration.hpp):
//
//   #include "../host_api.hpp"                              // the declarations both halves include
//   #include "host-tools/lib/functions/typed_host_function.hpp"
//
//   TPU_HOST_FUNCTION_OF(scale, [](const tpu::HostTensor& x, float factor) {
//     std::vector<float> values = x.values<float>("x");
//     for (float& v : values) v *= factor;
//     return tpu::HostTensor::of(x.dims, values);
//   });
//
// The implementation must take the declaration's parameters (a tensor as const tpu::HostTensor&, a
// scalar as its own type) and return its result (tpu::HostTensor for a tensor, the scalar type, or
// void): anything else does not compile. It is registered under the declaration's name like a
// TPU_HOST_FUNCTION (the same worker process, deadlines and error reporting). A call whose tensors do
// not fit the declaration (a device built against another version of the header) is an
// INVALID_ARGUMENT naming the function and the argument.
#pragma once
#include <string>
#include <type_traits>
#include <utility>

#include "app_host.hpp"
#include "runtime/tpu/replicate/host_function_declaration.hpp"

namespace tpu {

namespace typed_detail {

// What the implementation takes for a declared parameter type.
template <class T> struct HostSide { using type = T; };
template <> struct HostSide<rt::Tensor> { using type = const HostTensor&; };

template <class T>
std::decay_t<typename HostSide<std::remove_cvref_t<T>>::type> argument(const HostCall& call, size_t index) {
  using Declared = std::remove_cvref_t<T>;
  const HostTensor& tensor = call.tensor(index);
  if constexpr (std::is_same_v<Declared, rt::Tensor>) {
    return tensor;
  } else {
    const std::vector<Declared> values = tensor.values<Declared>("argument " + std::to_string(index));
    if (!tensor.dims.empty() || values.size() != 1)
      throw HostError(rt::StatusCode::kInvalidArgument, call.function() + ": argument " + std::to_string(index) +
                                                            " is declared a scalar, the call sent a tensor of " +
                                                            std::to_string(values.size()) + " elements");
    return values[0];
  }
}

template <class R, class Result>
HostReply reply(Result&& result) {
  if constexpr (std::is_same_v<R, rt::Tensor>) return HostReply(HostTensor(std::forward<Result>(result)));
  else return HostReply(HostTensor::scalar<R>(static_cast<R>(result)));
}

template <class Declaration, class Fn>
struct Adapter;

template <rt::tpu::HostFunctionName kName, class R, class... Params, class Fn>
struct Adapter<rt::tpu::HostFunctionDeclaration<kName, R(Params...)>, Fn> {
  static_assert(std::is_invocable_v<Fn, typename HostSide<std::remove_cvref_t<Params>>::type...>,
                "TPU_HOST_FUNCTION_OF: the implementation must take the declaration's parameters (a tensor as "
                "const tpu::HostTensor&, a scalar as its own type)");
  using Returned = std::invoke_result_t<Fn, typename HostSide<std::remove_cvref_t<Params>>::type...>;
  static_assert(std::is_same_v<R, void> ? std::is_void_v<Returned>
                : std::is_same_v<R, rt::Tensor> ? std::is_convertible_v<Returned, HostTensor>
                                                 : std::is_convertible_v<Returned, R>,
                "TPU_HOST_FUNCTION_OF: the implementation must return the declaration's result (tpu::HostTensor "
                "for a tensor, the scalar type, or void)");

  static HostReply call(const HostCall& call) {
    if (call.size() != sizeof...(Params))
      throw HostError(rt::StatusCode::kInvalidArgument, call.function() + " is declared with " +
                                                            std::to_string(sizeof...(Params)) + " arguments, the call sent " +
                                                            std::to_string(call.size()));
    return invoke(call, std::index_sequence_for<Params...>{});
  }
  template <size_t... I>
  static HostReply invoke(const HostCall& call, std::index_sequence<I...>) {
    Fn fn{};
    if constexpr (std::is_same_v<R, void>) {
      fn(argument<Params>(call, I)...);
      return {};
    } else {
      return reply<R>(fn(argument<Params>(call, I)...));
    }
  }
};

}  // namespace typed_detail

}  // namespace tpu

// Registers `lambda` (captureless) as the host half of the declared function `declaration`.
#define TPU_HOST_FUNCTION_OF(declaration, ...)                                                            \
  static const ::tpu::HostFunctionRegistration tpu_typed_host_registration_##declaration(                \
      std::string(::std::remove_cvref_t<decltype(declaration)>::name().data(),                           \
                  ::std::remove_cvref_t<decltype(declaration)>::name().size())                            \
          .c_str(),                                                                                        \
      [](const ::tpu::HostCall& call) {                                                                    \
        using Lambda = decltype(__VA_ARGS__);                                                              \
        return ::tpu::typed_detail::Adapter<::std::remove_cvref_t<decltype(declaration)>, Lambda>::call(call); \
      })
