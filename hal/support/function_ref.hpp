// FunctionRef<R(Args...)>: a non-owning reference to any callable (freestanding std::function_ref).
// Two words, no heap, no copy of the callable: the referenced callable must outlive every call
// through the reference, so use it for synchronous callbacks only (e.g. the program that
// run_program calls before returning), never for a function kept for later: that is an
// InplaceFunction (inplace_function.hpp).
#pragma once
#include "type_traits.hpp"

namespace rt {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class Callable>
    requires(!is_same_v<remove_cvref_t<Callable>, FunctionRef>)
  FunctionRef(Callable&& callable)  // NOLINT: implicit, like a function pointer
      : object_(const_cast<void*>(static_cast<const void*>(&callable))),
        call_([](void* object, Args... args) -> R {
          return (*static_cast<remove_reference_t<Callable>*>(object))(static_cast<Args&&>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, static_cast<Args&&>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace rt
