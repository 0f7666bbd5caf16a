// Tensor literals in an arena, TF's tf.constant:
//   Tensor x = RT_TRY(rt::constant<float>(arena, {2, 3}, {1, 2, 3, 4, 5, 6}));
//   Tensor s = RT_TRY(rt::scalar(arena, 0.5f));
// A value count that is not the shape's element count is INVALID_ARGUMENT naming both.
#pragma once
#include "hal/support/initializer_list.hpp"
#include "runtime/tensor/arena.hpp"

namespace rt {

template <HasDType T>
Result<Tensor> constant(Arena& arena, Span<const int64_t> dims, Span<const T> values, StringView what = "constant") {
  Result<Shape> shape = Shape::make(dims);
  if (!shape) return shape.status();
  if (static_cast<size_t>(shape->num_elements()) != values.size())
    return invalid_argument("{}: a shape of {} elements given {} values", what, shape->num_elements(), values.size());
  Result<Tensor> tensor = arena.allocate_tensor(kDTypeOf<T>, *shape, what);
  if (!tensor) return tensor;
  for (size_t i = 0; i < values.size(); ++i) tensor->values<T>()[i] = values[i];
  return tensor;
}

template <HasDType T>
Result<Tensor> constant(Arena& arena, std::initializer_list<int64_t> dims, std::initializer_list<T> values,
                        StringView what = "constant") {
  return constant<T>(arena, Span<const int64_t>(dims.begin(), dims.size()), Span<const T>(values.begin(), values.size()), what);
}

template <HasDType T>
Result<Tensor> scalar(Arena& arena, T value, StringView what = "scalar") {
  return constant<T>(arena, Span<const int64_t>(), Span<const T>(&value, 1), what);
}

}  // namespace rt
