// The nest facility: TF's tf.nest for structures of tensors (structure_traits.hpp: a Tensor, an
// Array<S, N> or S[N] of structures, or an aggregate of structures). Leaves are visited depth first
// in declaration order, as tf.nest flattens tuples and namedtuples.
//
//   struct Params { Tensor w, b; };
//   Array<Tensor, 2> flat = nest::flatten(params);                      // {params.w, params.b}
//   Params packed = RT_TRY(nest::pack_sequence_as<Params>(flat.span())); // tf.nest's text on a bad count
//   Params twice = RT_TRY(nest::map_structure([&](const Tensor& t) { return add(arena, t, t); }, params));
//
// Structures are C++ types, so tf.nest's structure checks happen at compile time: map_structure over
// two structures of different types does not compile, with tf.nest's "The two structures don't have
// the same nested structure." Where a structure meets a flat list of runtime length (replicate's
// inputs, the values replicas return), pack_sequence_as checks the count with tf.nest's text.
#pragma once
#include "fields.hpp"
#include "type_name.hpp"
#include "hal/support/format.hpp"
#include "hal/support/result.hpp"
#include "hal/support/status.hpp"

namespace rt::tpu::nest {

template <class S>
inline constexpr bool is_structure_v = is_leaf_v<S> || is_list_v<S> || is_tuple_v<S>;

template <class S>
constexpr size_t leaf_count();

namespace detail {
template <class... T>
constexpr size_t sum_leaf_counts(FieldTypes<T...>) {
  return (size_t{0} + ... + leaf_count<T>());
}
}  // namespace detail

// The number of tensors in a structure S (len(tf.nest.flatten(s))).
template <class S>
constexpr size_t leaf_count() {
  using T = remove_cv_t<S>;
  static_assert(is_structure_v<T>,
                "not a structure of tensors: a structure is a Tensor, an Array<S, N> (or S[N]) of structures, "
                "or a struct whose fields are structures");
  if constexpr (is_leaf_v<T>) return 1;
  else if constexpr (is_list_v<T>) return ListTraits<T>::kSize * leaf_count<typename ListTraits<T>::Element>();
  else return detail::sum_leaf_counts(FieldTypesOf<T>{});
}
template <class S> inline constexpr size_t leaf_count_v = leaf_count<S>();

// TF's "same nested structure" for C++ structures: the same type, up to const.
template <class A, class B>
inline constexpr bool same_structure_v = is_same_v<remove_cvref_t<A>, remove_cvref_t<B>>;

// visit(leaf) for every Tensor of `value`, in flatten order (Tensor& or const Tensor& as `value` is).
template <class S, class Visit>
constexpr void for_each_leaf(S& value, Visit&& visit) {
  static_assert(is_structure_v<remove_cv_t<S>>, "for_each_leaf: not a structure of tensors");
  if constexpr (is_leaf_v<S>) {
    visit(value);
  } else if constexpr (is_list_v<S>) {
    for (auto& element : value) for_each_leaf(element, visit);
  } else {
    for_each_field(value, [&](auto& field) { for_each_leaf(field, visit); });
  }
}

// tf.nest.flatten: the leaves in order.
template <class S>
Array<Tensor, leaf_count_v<S>> flatten(const S& value) {
  Array<Tensor, leaf_count_v<S>> leaves;
  size_t index = 0;
  for_each_leaf(value, [&](const Tensor& leaf) { leaves[index++] = leaf; });
  return leaves;
}

// A structure S whose leaf i is leaf_at(i), i in flatten order.
template <class S, class LeafAt>
S build(LeafAt&& leaf_at) {
  S value{};
  size_t index = 0;
  for_each_leaf(value, [&](Tensor& leaf) { leaf = leaf_at(index++); });
  return value;
}

// The structure's text for messages: a leaf "Tensor", a list "[a, b]", an aggregate "Name(a, b)".
template <class S>
void append_structure_text(FormatBuffer& out) {
  using T = remove_cv_t<S>;
  if constexpr (is_leaf_v<T>) {
    out.append("Tensor");
  } else if constexpr (is_list_v<T>) {
    out.append('[');
    for (size_t i = 0; i < ListTraits<T>::kSize; ++i) {
      if (i > 0) out.append(", ");
      append_structure_text<typename ListTraits<T>::Element>(out);
    }
    out.append(']');
  } else {
    out.append(type_name<T>());
    out.append('(');
    bool first = true;
    [&]<class... F>(FieldTypes<F...>) {
      ((out.append(first ? "" : ", "), first = false, append_structure_text<F>(out)), ...);
    }(FieldTypesOf<T>{});
    out.append(')');
  }
}

using StructureText = FixedString<240>;
template <class S>
StructureText structure_text() {
  StructureText text;
  append_structure_text<S>(text);
  return text;
}

// tf.nest's texts for a flat list of `items` tensors that cannot fill a structure of `atoms` leaves.
Status pack_count_error(StringView structure, size_t atoms, size_t items, bool structure_is_leaf);

// tf.nest.pack_sequence_as(structure, flat_sequence): S with its leaves from `flat`, in order; an
// INVALID_ARGUMENT with tf.nest's text when the counts differ.
template <class S>
Result<S> pack_sequence_as(Span<const Tensor> flat) {
  if (flat.size() != leaf_count_v<S>)
    return pack_count_error(structure_text<S>().view(), leaf_count_v<S>, flat.size(), is_leaf_v<S>);
  return build<S>([&](size_t index) { return flat[index]; });
}

// The addresses of a structure's leaves, in flatten order (const for a const structure).
template <class S>
auto leaf_addresses(S& value) {
  using Leaf = conditional_t<is_const_v<S>, const Tensor, Tensor>;
  Array<Leaf*, leaf_count_v<S>> addresses;
  size_t index = 0;
  for_each_leaf(value, [&](Leaf& leaf) { addresses[index++] = &leaf; });
  return addresses;
}

namespace detail {
template <class R> struct IsResult : false_type {};
template <class T> struct IsResult<Result<T>> : true_type {};
}  // namespace detail

// A structure S whose leaf i is make(i), where make returns Result<Tensor>: the first error stops it.
template <class S, class Make>
Result<S> try_build(Make&& make) {
  Status failure;
  S value = build<S>([&](size_t index) -> Tensor {
    if (!failure.is_ok()) return Tensor();
    Result<Tensor> leaf = make(index);
    if (!leaf) {
      failure = leaf.status();
      return Tensor();
    }
    return *leaf;
  });
  if (!failure.is_ok()) return failure;
  return value;
}

namespace detail {
// The mapped structure: leaf i is fn over leaf i of each structure (leaves[j]: structure j's).
template <class S, class F, size_t K, size_t... J>
auto map_leaves(F& fn, const Array<Array<const Tensor*, leaf_count_v<S>>, K>& leaves, IndexSequence<J...>) {
  using Returned = remove_cvref_t<decltype(fn((static_cast<void>(J), Tensor())...))>;
  if constexpr (IsResult<Returned>::value) {
    return try_build<S>([&](size_t i) { return fn(*leaves[J][i]...); });
  } else {
    return build<S>([&](size_t i) -> Tensor { return fn(*leaves[J][i]...); });
  }
}
}  // namespace detail

// tf.nest.map_structure(fn, *structures): a structure like the first whose leaf i is fn(leaf i of
// each). fn returns Tensor (the result is S) or Result<Tensor> (the result is Result<S>; the first
// error stops). Every structure must have the first's type: TF's structure check, at compile time.
template <class F, class S, class... More>
auto map_structure(F&& fn, const S& first, const More&... more) {
  static_assert((same_structure_v<S, More> && ...),
                "The two structures don't have the same nested structure. (map_structure's structures must "
                "have one type)");
  const Array<Array<const Tensor*, leaf_count_v<S>>, 1 + sizeof...(More)> leaves = {
      {leaf_addresses(first), leaf_addresses(more)...}};
  return detail::map_leaves<S>(fn, leaves, make_index_sequence<1 + sizeof...(More)>{});
}

}  // namespace rt::tpu::nest
