// Storage for one Mxu per core, constructed in place on first use by the owning core.
#include "core_mxu.hpp"

#include "hal/core.hpp"
#include "hal/support/new.hpp"
#include "runtime/mxu/board_tile.hpp"
#include "runtime/ops/dynamic_shape.hpp"

namespace rt {
namespace {

alignas(Mxu) uint8_t storage[hal::kMaxCores][sizeof(Mxu)];
bool constructed[hal::kMaxCores];

}  // namespace

Mxu& core_mxu() {
  const unsigned core = hal::core_id();
  Mxu* unit = reinterpret_cast<Mxu*>(storage[core]);
  if (!constructed[core]) {
    new (unit) Mxu(rt::kMxuTile);
    constructed[core] = true;
  }
  return *unit;
}

Result<Tensor> matmul(Arena& arena, const Tensor& a, const Tensor& b) {
  if (a.shape.rank != 2 || b.shape.rank != 2)
    return invalid_argument("matmul: A and B must be matrices, got ranks {} and {}", a.shape.rank, b.shape.rank);
  const int64_t dims[] = {a.shape.dims[0], b.shape.dims[1]};
  Shape shape = RT_TRY(Shape::make(dims));
  set_matmul_real_sizes(a, b, shape);
  const Tensor c = RT_TRY(arena.allocate_tensor(a.dtype == DType::kI8 ? DType::kI32 : DType::kF32, shape, "matmul"));
  const MatmulOperands operands = real_contraction(a, b);  // a padded K: its real part only
  RT_RETURN_IF_ERROR(matmul(core_mxu(), operands.a, operands.b, c));
  return c;
}

Result<Tensor> matmul(Arena& arena, const Tensor& a, const Tensor& b, const MatmulOptions& options) {
  if (a.shape.rank != 2 || b.shape.rank != 2)
    return invalid_argument("matmul: A and B must be matrices, got ranks {} and {}", a.shape.rank, b.shape.rank);
  const unsigned swap[] = {1, 0};
  const Tensor a_read = options.transpose_a ? RT_TRY(a.transpose(swap)) : a;
  const Tensor b_read = options.transpose_b ? RT_TRY(b.transpose(swap)) : b;
  return matmul(arena, a_read, b_read);
}

Result<Tensor> conv2d(Arena& arena, const Tensor& input, const Tensor& filter, const Conv2dOptions& options) {
  const Shape shape = RT_TRY(conv2d_output_shape(input.shape, filter.shape, options));
  const Tensor out = RT_TRY(arena.allocate_tensor(input.dtype == DType::kI8 ? DType::kI32 : DType::kF32, shape, "conv2d"));
  RT_RETURN_IF_ERROR(conv2d(core_mxu(), arena, input, filter, options, out));
  return out;
}

}  // namespace rt
