// The float32 micro-kernel interface of the MXU. A kernel multiplies a block of `rows` activation
// rows by one panel (`columns` wide) of the loaded weight tile and adds the products into a block of
// accumulators, keeping the whole block in registers for the entire k loop:
//
//   c[r][j] = accumulate ? c[r][j] : +0.0f
//   for k = 0 .. k_rows-1 (ascending):  c[r][j] = fma(a[r][k], w[k][j], c[r][j])
//
// which is exactly the MXU's numerics contract (mxu.hpp), so every kernel gives the same bits and
// the fastest one the CPU supports can be picked at run time.
//
// Layouts: activation element (r, k) is at a[r * a_row_stride + k * a_k_stride] (row-major rows
// straight from a tensor, or packed k-major when the kernel asks for it); the weight panel is packed
// k-major, w[k * columns + j], zero beyond the tile's last column (a panel run_block packed has
// unspecified floats there: it is for run_block only); c[r][j] is at c[r * c_row_stride + j].
#pragma once
#include "hal/support/span.hpp"
#include "hal/support/types.hpp"

namespace rt {

// The weights a block kernel reads (FloatKernel::run_block): w[k][j] at data[k * row_stride + j],
// float32 (aligned to 4 bytes), or bfloat16 bits (aligned to 2) widened exactly as they are read.
// bfloat16 weights come with a pack_to: the kernel widens them once, into the packed panel
// (without one it is a programming error, and the kernel panics).
struct BlockWeights {
  const void* data;
  int64_t row_stride;
  bool bfloat16 = false;
};

struct FloatKernel {
  const char* name;
  unsigned rows;     // activation rows per block (`run` takes exactly this many)
  unsigned columns;  // weight panel width
  // Non-zero when the kernel reads activations packed k-major: packed_k_stride floats per k step
  // (a_row_stride 1, a_k_stride packed_k_stride; slots past `rows` are zero, so a step's
  // activations load as whole vectors). Zero: any strides work, float32 rows are used in place.
  unsigned packed_k_stride;
  void (*run)(const float* a, int64_t a_row_stride, int64_t a_k_stride, const float* w, unsigned k_rows, float* c,
              int64_t c_row_stride, bool accumulate);
  // Optional (null: the MXU calls `run` on packed panels, padding partial blocks through buffers):
  // the same product for any number of rows (the kernel walks them `rows` at a time) and
  // 1 .. `columns` columns, weights read with any row stride (BlockWeights) and activations with
  // any strides. Only the block is read (nothing of w past column cols - 1, of a past row rows - 1)
  // and written (c[r][j] for r < rows, j < cols): the MXU runs weight tiles and ragged edges in
  // place. Every NaN it stores is the canonical quiet NaN 0x7fc00000, so matmul needs no pass over
  // C for them.
  // pack_to (may be null): the weights are also copied there as a packed float32 panel, w[k][j]
  // at pack_to[k * columns + j] for j < cols (later floats of a row unspecified), while the first
  // rows are multiplied; the other rows then read the panel. So a caller with many rows gets its
  // weights packed (bfloat16 ones widened) without a pass of its own. pack_to holds
  // k_rows * columns floats and overlaps nothing else. With rows = 0 the weights are only packed.
  void (*run_block)(const float* a, int64_t a_row_stride, int64_t a_k_stride, BlockWeights w, unsigned k_rows,
                    unsigned rows, unsigned cols, float* c, int64_t c_row_stride, bool accumulate,
                    float* pack_to) = nullptr;
  // Optional, with run_block: the same with bfloat16 activations, read in place and widened exactly
  // (their bits as the top half of a float32), rows with unit k stride: a[r][k] at
  // a[r * a_row_stride + k]. Reads nothing outside the block's rows (k = 0 .. k_rows - 1).
  void (*run_block_bf16)(const uint16_t* a, int64_t a_row_stride, BlockWeights w, unsigned k_rows, unsigned rows,
                         unsigned cols, float* c, int64_t c_row_stride, bool accumulate, float* pack_to) = nullptr;
  // Optional: `run` for the panel's first `cols` columns (1 .. columns) only, so a narrow edge panel
  // (a 10-class layer in a 16-column panel) costs fewer multiply-adds. The same operands as `run`: w
  // the whole panel (row stride `columns`), c rows at least `columns` wide. c[r][j] for j < cols as
  // `run` gives them; c[r][j] for cols <= j < columns may be read (accumulating) and written, and hold
  // unspecified values afterwards; nothing past column `columns` is read or written.
  void (*run_narrow)(const float* a, int64_t a_row_stride, int64_t a_k_stride, const float* w, unsigned k_rows,
                     unsigned cols, float* c, int64_t c_row_stride, bool accumulate) = nullptr;
};

// pack_to made by a plain copy (packed_panel.cpp): weight rows 0 .. k_rows - 1, columns 0 .. columns - 1
// (bfloat16 ones widened exactly) at packed[k * panel_columns + j], nothing else read or written.
void copy_to_packed_panel(BlockWeights weights, unsigned k_rows, unsigned columns, unsigned panel_columns,
                          float* packed);

inline constexpr unsigned kMaxKernelRows = 16;
inline constexpr unsigned kMaxKernelColumns = 32;
// Also bounds `rows` of a block kernel: the MXU's activation buffer (kMaxPackedKStride x the tile's
// K floats) holds a block of rows it cannot read in place (unaligned float32, strided bfloat16).
inline constexpr unsigned kMaxPackedKStride = 16;

// Every kernel this CPU can run, fastest first (the first is what an Mxu uses by default).
Span<const FloatKernel* const> float_kernels_for_this_cpu();
// The portable kernel (plain loops of __builtin_fmaf), available on every target.
extern const FloatKernel kPortableFloatKernel;

}  // namespace rt
