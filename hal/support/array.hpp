// Array<T, N>: a fixed-size value array (freestanding std::array).
#pragma once
#include "span.hpp"

namespace rt {

template <class T, size_t N>
struct Array {
  T elements[N > 0 ? N : 1];

  constexpr size_t size() const { return N; }
  constexpr T& operator[](size_t index) { return elements[index]; }
  constexpr const T& operator[](size_t index) const { return elements[index]; }
  constexpr T* data() { return elements; }
  constexpr const T* data() const { return elements; }
  constexpr T* begin() { return elements; }
  constexpr T* end() { return elements + N; }
  constexpr const T* begin() const { return elements; }
  constexpr const T* end() const { return elements + N; }
  constexpr Span<T> span() { return Span<T>(elements, N); }
  constexpr Span<const T> span() const { return Span<const T>(elements, N); }
};

}  // namespace rt
