// Shape: up to six dimensions, each with its (padded) size and its real size. The real size is
// what a dynamic-shape computation asks for; it equals the size unless replicate padded the tensor.
#pragma once
#include "hal/support/result.hpp"
#include "hal/support/span.hpp"

namespace rt {

inline constexpr unsigned kMaxRank = 6;

struct Shape {
  uint8_t rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t real[kMaxRank] = {};

  // Validates rank <= 6 and sizes >= 0; real sizes start equal to the sizes.
  static Result<Shape> make(Span<const int64_t> dims);
  int64_t num_elements() const;
  Span<const int64_t> sizes() const { return Span<const int64_t>(dims, rank); }
  bool operator==(const Shape& other) const;
  // Records a padded dimension's real size (0 <= real <= dims[dim]).
  Status set_real_size(unsigned dim, int64_t real_size);
};

}  // namespace rt
