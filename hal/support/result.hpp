// Result<T>: either a value or a non-OK Status (the runtime's expected<T, Status>).
#pragma once
#include "new.hpp"
#include "status.hpp"
#include "utility.hpp"

namespace rt {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(const T& value) : has_value_(true) { new (&value_) T(value); }
  Result(T&& value) : has_value_(true) { new (&value_) T(rt::move(value)); }
  // An error result. Passing an OK status is a programming error and is turned into an internal error.
  Result(const Status& status) : status_(status) {
    if (status_.is_ok()) status_ = internal_error("Result constructed from an OK status without a value");
  }
  Result(const Result& other) : status_(other.status_), has_value_(other.has_value_) {
    if (has_value_) new (&value_) T(other.value_);
  }
  Result& operator=(const Result& other) {
    if (this != &other) {
      destroy();
      status_ = other.status_;
      has_value_ = other.has_value_;
      if (has_value_) new (&value_) T(other.value_);
    }
    return *this;
  }
  ~Result() { destroy(); }

  bool is_ok() const { return has_value_; }
  explicit operator bool() const { return has_value_; }
  const Status& status() const { return status_; }
  T& value() { return value_; }
  const T& value() const { return value_; }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }
  T& operator*() { return value_; }
  const T& operator*() const { return value_; }

 private:
  void destroy() {
    if (has_value_) value_.~T();
    has_value_ = false;
  }

  Status status_;
  bool has_value_ = false;
  union {
    T value_;
  };
};

}  // namespace rt

// RT_TRY(expr): the value of a Result<T> expression, or return its error from the enclosing function
// (which returns Status or Result<U>):
//   Tensor y = RT_TRY(rt::constant<float>(arena, {2}, {1, 2}));
// (A GCC statement expression: the project builds with GCC on every target.)
#define RT_TRY(expr)                                 \
  ({                                                 \
    auto&& rt_try_result_ = (expr);                  \
    if (!rt_try_result_) return rt_try_result_.status(); \
    ::rt::move(*rt_try_result_);                     \
  })
