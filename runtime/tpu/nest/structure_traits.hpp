// What a structure is, for the nest facility (nest.hpp): TF's nested structures of tensors written as
// C++ types, classified at compile time.
//   - a leaf: a Tensor;
//   - a list: Array<S, N> or S[N], N structures in order (TF's list);
//   - a tuple: an aggregate (a struct with public fields, no constructors: TF's namedtuple), its fields
//     in declaration order, each a structure. A struct with a few fields "just works": its fields are
//     found with aggregate initialisation and structured bindings (up to kMaxStructureFields).
// Anything else (a float, a pointer, a class with constructors) is not a structure: using it where a
// structure is expected fails to compile (nest.hpp's static_assert says so).
// List fields of an aggregate must be Array<S, N>, not S[N] (brace elision would hide the count).
#pragma once
#include "hal/support/array.hpp"
#include "hal/support/type_traits.hpp"
#include "hal/support/utility.hpp"
#include "runtime/tensor/tensor.hpp"

namespace rt::tpu::nest {

inline constexpr size_t kMaxStructureFields = 16;

template <class T> inline constexpr bool is_leaf_v = is_same_v<remove_cv_t<T>, Tensor>;

template <class T> struct ListTraits { static constexpr bool value = false; };
template <class T, size_t N> struct ListTraits<Array<T, N>> {
  static constexpr bool value = true;
  using Element = T;
  static constexpr size_t kSize = N;
};
template <class T, size_t N> struct ListTraits<T[N]> {
  static constexpr bool value = true;
  using Element = T;
  static constexpr size_t kSize = N;
};
template <class T> inline constexpr bool is_list_v = ListTraits<remove_cv_t<T>>::value;

template <class T>
inline constexpr bool is_tuple_v = !is_leaf_v<T> && !is_list_v<T> && __is_class(remove_cv_t<T>) &&
                                   __is_aggregate(remove_cv_t<T>);

namespace detail {

// Converts to anything (only in unevaluated brace initialisation, to count an aggregate's fields).
struct AnyField {
  template <class T> constexpr operator T() const noexcept;
};

template <class T, size_t... I>
constexpr bool takes_initializers(IndexSequence<I...>) {
  return requires { T{(static_cast<void>(I), AnyField{})...}; };
}

// The most initialisers T{...} takes: its field count.
template <class T, size_t N = kMaxStructureFields + 1>
constexpr size_t count_fields() {
  if constexpr (N == 0) return 0;
  else if constexpr (takes_initializers<T>(make_index_sequence<N>{})) return N;
  else return count_fields<T, N - 1>();
}

}  // namespace detail

// The number of fields of an aggregate T.
template <class T> inline constexpr size_t field_count_v = detail::count_fields<remove_cv_t<T>>();

}  // namespace rt::tpu::nest
