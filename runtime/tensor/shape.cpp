// Shape validation and element counts.
#include "shape.hpp"

namespace rt {

Result<Shape> Shape::make(Span<const int64_t> sizes) {
  if (sizes.size() > kMaxRank) return invalid_argument("rank {} exceeds the maximum rank {}", sizes.size(), kMaxRank);
  Shape shape;
  shape.rank = static_cast<uint8_t>(sizes.size());
  for (unsigned d = 0; d < shape.rank; ++d) {
    if (sizes[d] < 0) return invalid_argument("dimension {} of shape {} is negative", d, sizes);
    shape.dims[d] = shape.real[d] = sizes[d];
  }
  return shape;
}

int64_t Shape::num_elements() const {
  int64_t count = 1;
  for (unsigned d = 0; d < rank; ++d) count *= dims[d];
  return count;
}

bool Shape::operator==(const Shape& other) const {
  if (rank != other.rank) return false;
  for (unsigned d = 0; d < rank; ++d)
    if (dims[d] != other.dims[d]) return false;
  return true;
}

Status Shape::set_real_size(unsigned dim, int64_t real_size) {
  if (dim >= rank) return invalid_argument("dimension {} is out of range for rank {}", dim, rank);
  if (real_size < 0 || real_size > dims[dim])
    return invalid_argument("real size {} of dimension {} is outside [0, {}]", real_size, dim, dims[dim]);
  real[dim] = real_size;
  return Status::ok();
}

}  // namespace rt
