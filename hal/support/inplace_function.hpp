// InplaceFunction<R(Args...)>: a callable stored by value in a fixed inline buffer (a freestanding,
// heap-free std::function). Every function the runtime keeps and calls later (replicate's
// computations, TPUStrategy's run/update/step/merge/dataset functions) is one of these.
//
//   InplaceFunction<Status(int)> check = [limit](int x) { return x < limit ? Status::ok() : ...; };
//   Status status = check(3);
//
// The callable is copied into the buffer (at most kBytes, aligned to at most kAlignment), and must be
// trivially copyable: capture values, pointers or references. So an InplaceFunction is itself
// trivially copyable: copying it (say, into another core's launch slot) copies the callable, and a
// copy stays valid after the original is gone. Both limits are static_asserts, never a runtime error.
#pragma once
#include "type_traits.hpp"
#include "types.hpp"

namespace rt {

inline constexpr size_t kInplaceFunctionBytes = 128;
inline constexpr size_t kInplaceFunctionAlignment = 16;

template <class Signature, size_t kBytes = kInplaceFunctionBytes>
class InplaceFunction;

template <class R, class... Args, size_t kBytes>
class InplaceFunction<R(Args...), kBytes> {
 public:
  InplaceFunction() = default;

  // Any callable taking Args... and returning something convertible to R (a lambda, a function, a
  // function pointer).
  template <class F>
    requires(!is_same_v<remove_cvref_t<F>, InplaceFunction> &&
             requires(remove_cvref_t<F>& fn, Args&&... args) { static_cast<R>(fn(static_cast<Args&&>(args)...)); })
  InplaceFunction(F fn)  // NOLINT: implicit, like a function pointer
  {
    static_assert(sizeof(F) <= kBytes, "the callable's captures exceed the InplaceFunction's buffer: capture less");
    static_assert(alignof(F) <= kInplaceFunctionAlignment, "the callable needs more alignment than the buffer has");
    static_assert(is_trivially_copyable_v<F>,
                  "an InplaceFunction's callable must be trivially copyable: capture values, pointers or references");
    __builtin_memcpy(storage_, static_cast<const void*>(&fn), sizeof(F));
    call_ = &call_stored<F>;
  }

  explicit operator bool() const { return call_ != nullptr; }

  // Calls the stored callable; calling an empty InplaceFunction is a bug (a null call).
  R operator()(Args... args) const { return call_(storage_, static_cast<Args&&>(args)...); }

 private:
  template <class F>
  static R call_stored(unsigned char* storage, Args... args) {
    return static_cast<R>((*reinterpret_cast<F*>(storage))(static_cast<Args&&>(args)...));
  }

  alignas(kInplaceFunctionAlignment) mutable unsigned char storage_[kBytes] = {};
  R (*call_)(unsigned char*, Args...) = nullptr;
};

}  // namespace rt
