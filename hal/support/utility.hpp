// move/forward/swap and small arithmetic helpers (freestanding replacements for <utility>/<algorithm>).
#pragma once
#include "type_traits.hpp"

namespace rt {

template <class T>
constexpr remove_reference_t<T>&& move(T&& value) noexcept {
  return static_cast<remove_reference_t<T>&&>(value);
}

template <class T>
constexpr T&& forward(remove_reference_t<T>& value) noexcept {
  return static_cast<T&&>(value);
}

template <class T>
constexpr void swap(T& a, T& b) noexcept {
  T tmp = rt::move(a);
  a = rt::move(b);
  b = rt::move(tmp);
}

template <class T> constexpr const T& min(const T& a, const T& b) { return b < a ? b : a; }
template <class T> constexpr const T& max(const T& a, const T& b) { return a < b ? b : a; }

// Rounds value up to a multiple of alignment (alignment must be a power of two).
constexpr uintptr_t align_up(uintptr_t value, uintptr_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

constexpr bool is_power_of_two(uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

// IndexSequence<0, 1, .., N-1> (std::index_sequence), for expanding a pack over positions.
template <size_t... I> struct IndexSequence {};
namespace detail {
template <size_t N, size_t... I> struct MakeIndexSequence : MakeIndexSequence<N - 1, N - 1, I...> {};
template <size_t... I> struct MakeIndexSequence<0, I...> { using type = IndexSequence<I...>; };
}  // namespace detail
template <size_t N> using make_index_sequence = typename detail::MakeIndexSequence<N>::type;

template <class T, size_t N>
constexpr size_t array_size(const T (&)[N]) { return N; }

}  // namespace rt
