// Span<T>: a non-owning view of contiguous elements with bounds-checked access helpers.
#pragma once
#include "initializer_list.hpp"
#include "type_traits.hpp"
#include "types.hpp"

namespace rt {

template <class T>
class Span {
 public:
  constexpr Span() = default;
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  template <size_t N>
  constexpr Span(T (&array)[N]) : data_(array), size_(N) {}
  // Views over initializer lists are only safe for const element types (the list outlives the call).
  // GCC warns that the view does not extend the list's life (-Winit-list-lifetime) in every program
  // that passes {a, b} to a Span parameter; a parameter's view ends with the call, as the list does.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr Span(std::initializer_list<T> list) requires is_const_v<T>
      : data_(list.begin()), size_(list.size()) {}
#pragma GCC diagnostic pop
  template <class U>
  constexpr Span(const Span<U>& other) requires is_convertible_v<U*, T*>
      : data_(other.data()), size_(other.size()) {}

  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T& operator[](size_t index) const { return data_[index]; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }
  constexpr size_t size_bytes() const { return size_ * sizeof(T); }

  // Sub-view [offset, offset + count), clamped to the span.
  constexpr Span subspan(size_t offset, size_t count = ~size_t{0}) const {
    if (offset > size_) offset = size_;
    size_t rest = size_ - offset;
    return Span(data_ + offset, count < rest ? count : rest);
  }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

template <class T>
Span(T*, size_t) -> Span<T>;

}  // namespace rt
