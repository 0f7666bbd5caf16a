// Field access for aggregates (structure_traits.hpp), through structured bindings (C++ has no
// reflection yet): for_each_field(value, visit) calls visit(field) for each field in declaration
// order (const aggregates give const fields); FieldTypesOf<T> lists the fields' types.
#pragma once
#include "structure_traits.hpp"

namespace rt::tpu::nest {

template <class... T> struct FieldTypes {};

template <class T>
constexpr void check_field_count() {
  static_assert(field_count_v<T> <= kMaxStructureFields,
                "a structure (aggregate) has at most kMaxStructureFields fields: group them into nested structs");
}

template <class T, class Visit>
constexpr void for_each_field(T& value, Visit&& visit) {
  constexpr size_t kFields = field_count_v<T>;
  check_field_count<T>();
  if constexpr (kFields == 0) {
    (void)value;
    (void)visit;
  } else if constexpr (kFields == 1) {
    auto& [f0] = value;
    visit(f0);
  } else if constexpr (kFields == 2) {
    auto& [f0, f1] = value;
    visit(f0); visit(f1);
  } else if constexpr (kFields == 3) {
    auto& [f0, f1, f2] = value;
    visit(f0); visit(f1); visit(f2);
  } else if constexpr (kFields == 4) {
    auto& [f0, f1, f2, f3] = value;
    visit(f0); visit(f1); visit(f2); visit(f3);
  } else if constexpr (kFields == 5) {
    auto& [f0, f1, f2, f3, f4] = value;
    visit(f0); visit(f1); visit(f2); visit(f3); visit(f4);
  } else if constexpr (kFields == 6) {
    auto& [f0, f1, f2, f3, f4, f5] = value;
    visit(f0); visit(f1); visit(f2); visit(f3); visit(f4); visit(f5);
  } else if constexpr (kFields == 7) {
    auto& [f0, f1, f2, f3, f4, f5, f6] = value;
    visit(f0); visit(f1); visit(f2); visit(f3); visit(f4); visit(f5); visit(f6);
  } else if constexpr (kFields == 8) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7] = value;
    visit(f0); visit(f1); visit(f2); visit(f3); visit(f4); visit(f5); visit(f6); visit(f7);
  } else if constexpr (kFields == 9) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8] = value;
    visit(f0); visit(f1); visit(f2); visit(f3); visit(f4); visit(f5); visit(f6); visit(f7); visit(f8);
  } else if constexpr (kFields == 10) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9] = value;
    visit(f0); visit(f1); visit(f2); visit(f3); visit(f4); visit(f5); visit(f6); visit(f7); visit(f8); visit(f9);
  } else if constexpr (kFields == 11) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10] = value;
    visit(f0); visit(f1); visit(f2); visit(f3); visit(f4); visit(f5); visit(f6); visit(f7); visit(f8); visit(f9); visit(f10);
  } else if constexpr (kFields == 12) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11] = value;
    visit(f0); visit(f1); visit(f2); visit(f3); visit(f4); visit(f5); visit(f6); visit(f7); visit(f8); visit(f9); visit(f10); visit(f11);
  } else if constexpr (kFields == 13) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12] = value;
    visit(f0); visit(f1); visit(f2); visit(f3); visit(f4); visit(f5); visit(f6); visit(f7); visit(f8); visit(f9); visit(f10); visit(f11); visit(f12);
  } else if constexpr (kFields == 14) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13] = value;
    visit(f0); visit(f1); visit(f2); visit(f3); visit(f4); visit(f5); visit(f6); visit(f7); visit(f8); visit(f9); visit(f10); visit(f11); visit(f12); visit(f13);
  } else if constexpr (kFields == 15) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14] = value;
    visit(f0); visit(f1); visit(f2); visit(f3); visit(f4); visit(f5); visit(f6); visit(f7); visit(f8); visit(f9); visit(f10); visit(f11); visit(f12); visit(f13); visit(f14);
  } else if constexpr (kFields == 16) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15] = value;
    visit(f0); visit(f1); visit(f2); visit(f3); visit(f4); visit(f5); visit(f6); visit(f7); visit(f8); visit(f9); visit(f10); visit(f11); visit(f12); visit(f13); visit(f14); visit(f15);
  }
}

namespace detail {
// Never called: its return type names the fields' types.
template <class T>
auto field_types_of(T& value) {
  constexpr size_t kFields = field_count_v<T>;
  check_field_count<T>();
  if constexpr (kFields == 0) {
    (void)value;
    return FieldTypes<>{};
  } else if constexpr (kFields == 1) {
    auto& [f0] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>>{};
  } else if constexpr (kFields == 2) {
    auto& [f0, f1] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>>{};
  } else if constexpr (kFields == 3) {
    auto& [f0, f1, f2] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>>{};
  } else if constexpr (kFields == 4) {
    auto& [f0, f1, f2, f3] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>>{};
  } else if constexpr (kFields == 5) {
    auto& [f0, f1, f2, f3, f4] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>, remove_reference_t<decltype(f4)>>{};
  } else if constexpr (kFields == 6) {
    auto& [f0, f1, f2, f3, f4, f5] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>, remove_reference_t<decltype(f4)>, remove_reference_t<decltype(f5)>>{};
  } else if constexpr (kFields == 7) {
    auto& [f0, f1, f2, f3, f4, f5, f6] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>, remove_reference_t<decltype(f4)>, remove_reference_t<decltype(f5)>, remove_reference_t<decltype(f6)>>{};
  } else if constexpr (kFields == 8) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>, remove_reference_t<decltype(f4)>, remove_reference_t<decltype(f5)>, remove_reference_t<decltype(f6)>, remove_reference_t<decltype(f7)>>{};
  } else if constexpr (kFields == 9) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>, remove_reference_t<decltype(f4)>, remove_reference_t<decltype(f5)>, remove_reference_t<decltype(f6)>, remove_reference_t<decltype(f7)>, remove_reference_t<decltype(f8)>>{};
  } else if constexpr (kFields == 10) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>, remove_reference_t<decltype(f4)>, remove_reference_t<decltype(f5)>, remove_reference_t<decltype(f6)>, remove_reference_t<decltype(f7)>, remove_reference_t<decltype(f8)>, remove_reference_t<decltype(f9)>>{};
  } else if constexpr (kFields == 11) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>, remove_reference_t<decltype(f4)>, remove_reference_t<decltype(f5)>, remove_reference_t<decltype(f6)>, remove_reference_t<decltype(f7)>, remove_reference_t<decltype(f8)>, remove_reference_t<decltype(f9)>, remove_reference_t<decltype(f10)>>{};
  } else if constexpr (kFields == 12) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>, remove_reference_t<decltype(f4)>, remove_reference_t<decltype(f5)>, remove_reference_t<decltype(f6)>, remove_reference_t<decltype(f7)>, remove_reference_t<decltype(f8)>, remove_reference_t<decltype(f9)>, remove_reference_t<decltype(f10)>, remove_reference_t<decltype(f11)>>{};
  } else if constexpr (kFields == 13) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>, remove_reference_t<decltype(f4)>, remove_reference_t<decltype(f5)>, remove_reference_t<decltype(f6)>, remove_reference_t<decltype(f7)>, remove_reference_t<decltype(f8)>, remove_reference_t<decltype(f9)>, remove_reference_t<decltype(f10)>, remove_reference_t<decltype(f11)>, remove_reference_t<decltype(f12)>>{};
  } else if constexpr (kFields == 14) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>, remove_reference_t<decltype(f4)>, remove_reference_t<decltype(f5)>, remove_reference_t<decltype(f6)>, remove_reference_t<decltype(f7)>, remove_reference_t<decltype(f8)>, remove_reference_t<decltype(f9)>, remove_reference_t<decltype(f10)>, remove_reference_t<decltype(f11)>, remove_reference_t<decltype(f12)>, remove_reference_t<decltype(f13)>>{};
  } else if constexpr (kFields == 15) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>, remove_reference_t<decltype(f4)>, remove_reference_t<decltype(f5)>, remove_reference_t<decltype(f6)>, remove_reference_t<decltype(f7)>, remove_reference_t<decltype(f8)>, remove_reference_t<decltype(f9)>, remove_reference_t<decltype(f10)>, remove_reference_t<decltype(f11)>, remove_reference_t<decltype(f12)>, remove_reference_t<decltype(f13)>, remove_reference_t<decltype(f14)>>{};
  } else if constexpr (kFields == 16) {
    auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15] = value;
    return FieldTypes<remove_reference_t<decltype(f0)>, remove_reference_t<decltype(f1)>, remove_reference_t<decltype(f2)>, remove_reference_t<decltype(f3)>, remove_reference_t<decltype(f4)>, remove_reference_t<decltype(f5)>, remove_reference_t<decltype(f6)>, remove_reference_t<decltype(f7)>, remove_reference_t<decltype(f8)>, remove_reference_t<decltype(f9)>, remove_reference_t<decltype(f10)>, remove_reference_t<decltype(f11)>, remove_reference_t<decltype(f12)>, remove_reference_t<decltype(f13)>, remove_reference_t<decltype(f14)>, remove_reference_t<decltype(f15)>>{};
  }
}
}  // namespace detail

template <class T> using FieldTypesOf = decltype(detail::field_types_of(*static_cast<T*>(nullptr)));

}  // namespace rt::tpu::nest
