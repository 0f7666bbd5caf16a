// Each core's own matrix unit, as a TPU core has one: core_mxu() is the calling core's Mxu, with
// the tile size the board chose (boards/<board>/board.mk BOARD_MXU_TILE) and the fastest float
// kernel the CPU runs. Each unit is built on its core's first call; only that core touches it.
// matmul(arena, a, b) returns C = A x B allocated in `arena`, computed on the calling core's MXU.
#pragma once
#include "mxu.hpp"
#include "runtime/ops/conv2d.hpp"
#include "runtime/tensor/arena.hpp"

namespace rt {

Mxu& core_mxu();

// C[M, N] = A[M, K] x B[K, N] (float32 for float inputs, int32 for int8), allocated in `arena`.
// Padded operands (runtime/ops/dynamic_shape.hpp): a padded K contributes only its real part (the
// smaller real K of A and B); C's real sizes are A's real rows and B's real columns.
Result<Tensor> matmul(Arena& arena, const Tensor& a, const Tensor& b);

// tf.linalg.matmul's transpose_a / transpose_b: the operand is read transposed where it lies (a
// strided view, no copy), so matmul(arena, h, dlogits, {.transpose_a = true}) is h^T x dlogits.
struct MatmulOptions {
  bool transpose_a = false;
  bool transpose_b = false;
};
Result<Tensor> matmul(Arena& arena, const Tensor& a, const Tensor& b, const MatmulOptions& options);
// tf.nn.conv2d (NHWC input, HWIO filter) on the calling core's MXU, allocated in `arena` (which
// also holds the im2col scratch while it runs).
Result<Tensor> conv2d(Arena& arena, const Tensor& input, const Tensor& filter, const Conv2dOptions& options);

}  // namespace rt
