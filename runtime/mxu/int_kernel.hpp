// The int8 micro-kernel interface of the MXU. A kernel multiplies a block of `rows` activation rows
// by one panel (`columns` wide) of the weight tile and adds the products into int32 accumulators
// held in registers for the whole k loop:
//
//   c[r][j] = (accumulate ? c[r][j] : 0) + sum over k of a[r][k] * w[k][j]   (mod 2^32)
//
// Integer addition mod 2^32 is associative, so every order gives the same bits: kernels may add
// k steps in pairs (x86 vpmaddwd), in fours (VNNI vpdpbusd) or in any grouping.
//
// Kernels take their operands in one of two layouts (IntKernel::layout):
//
// kInt16: int8 values widened to int16 (exact; a pair of int16 x int16 products cannot overflow
//   int32). group = k_group, 1 or 2; K is padded with zeros to a multiple of it. Activations
//   a[((k / group) * rows + r) * group + k % group], weights w[((k / group) * columns + j) * group +
//   k % group], zero beyond the tile's last column.
//
// kBiasedBytes (VNNI's u8 x s8 dot products, k_group 4): activations stay int8, row-major, a[r][k]
//   at a[r * a_row_stride + k] (straight from the activation tensor when its rows are contiguous);
//   each row holds k_steps readable bytes (K padded to a multiple of 4, with zeros when packed).
//   The kernel biases them to unsigned itself, a_u = a + 128 (uint8: the top bit flipped). Weights
//   stay int8, w[((k / 4) * columns + j) * 4 + k % 4], zero past the tile's K (so whatever the
//   activation slots there hold adds nothing) and past its last column. Since
//   sum_k a_u[k] * w[k][j] = sum_k a[k] * w[k][j] + 128 * sum_k w[k][j], each panel comes with
//   correction[j] = -128 * sum_k w[k][j] (mod 2^32), computed when the weights are packed, which the
//   kernel adds once: the result is exact mod 2^32, the same bits as the kInt16 kernels. Each
//   32-bit lane of vpdpbusd adds four u8 x s8 products (each within [-32640, 32385], their sum
//   within int32) to the accumulator with wrap-around (vpdpbusd, not the saturating vpdpbusds).
//   A call covers `rows` rows (1 .. IntKernel::rows); rows past them are neither read nor written.
//
// c[r][j] is at c[r * c_row_stride + j] in both.
#pragma once
#include "hal/support/span.hpp"
#include "hal/support/types.hpp"

namespace rt {

enum class IntLayout : uint8_t { kInt16, kBiasedBytes };

struct IntKernel {
  const char* name;
  unsigned rows;     // activation rows per call
  unsigned columns;  // weight panel width
  unsigned k_group;  // k steps interleaved per packed element group (1 or 2 for kInt16, 4 for kBiasedBytes)
  // kInt16 kernels: k_steps is K padded to a multiple of k_group.
  void (*run)(const int16_t* a, const int16_t* w, unsigned k_steps, int32_t* c, int64_t c_row_stride, bool accumulate);
  IntLayout layout = IntLayout::kInt16;
  // kBiasedBytes kernels: k_steps is K padded to a multiple of 4; `correction` holds `columns` values;
  // rows is 1 .. IntKernel::rows.
  void (*run_biased)(const int8_t* a, int64_t a_row_stride, const int8_t* w, const int32_t* correction,
                     unsigned k_steps, unsigned rows, int32_t* c, int64_t c_row_stride, bool accumulate) = nullptr;
  // kBiasedBytes kernels, optional (null: the MXU's element-by-element packing): packs one panel
  // from weights with unit column stride, w[k][j] at w[k * w_row_stride + j] for k < k_rows,
  // j < valid_columns: writes the panel (k_rows padded to a multiple of 4) and its `columns`
  // corrections, both exactly as the layout above defines them.
  void (*pack_biased_panel)(const int8_t* w, int64_t w_row_stride, unsigned k_rows, unsigned valid_columns,
                            int8_t* panel, int32_t* correction) = nullptr;
};

inline constexpr unsigned kMaxIntKernelRows = 8;
inline constexpr unsigned kMaxIntKernelColumns = 64;    // kBiasedBytes kernels
inline constexpr unsigned kMaxInt16KernelColumns = 32;  // kInt16 kernels

// Every int8 kernel this CPU can run, fastest first.
Span<const IntKernel* const> int_kernels_for_this_cpu();
// The portable kernel (plain int32 loops, kInt16 layout), available on every target.
extern const IntKernel kPortableIntKernel;

}  // namespace rt
