// The software matrix unit (MXU) of one core: weight-stationary, like a TPU's. A tile of weights
// (up to tile x tile, K rows by N columns) is loaded once; rows of activations stream through it
// and their products are added to accumulators (float32, or int32 for int8 inputs), either
// overwriting them or accumulating onto them.
//
// Numerics, defined here once for every board:
//   inputs   float32 x float32, bfloat16 x bfloat16 (widened exactly), int8 x int8
//   order    acc[m][n] = fma(a[m][K-1], w[K-1][n], ... fma(a[m][1], w[1][n], fma(a[m][0], w[0][n],
//            start))): k ascending within a tile and tiles in ascending k; start = 0 (overwrite)
//            or the accumulator's value
//   rounding one fused multiply-add per step, rounded once (IEEE fma: AArch64 fmadd, RISC-V
//            fmadd.s, x86 FMA3, which the host board requires); int8 products and sums are exact
//            int32 (sums wrap past 2^31). bfloat16 products are exact in float32 anyway.
// Vector code runs across n (columns), never across k, so it keeps this order: results are the
// same bits on the host, qemu-virt-a53 and qemu-virt-rv64, and equal to a loop of std::fma. The
// chain of fmas runs through consecutive tiles unbroken, so the tile size does not change results.
//
// Datapath: load_weights packs the tile into panels as wide as the float micro-kernel
// (float_kernel.hpp; AVX-512/AVX2 on x86-64, NEON on AArch64, portable loops elsewhere); stream
// feeds blocks of activation rows through every panel, reading float32 rows and accumulators in
// place when their layout allows and going through small packed buffers when it does not. int8
// goes the same way through the int micro-kernel (int_kernel.hpp): on x86-64 with VNNI, int8 weight
// panels with their column-sum corrections and int8 activation rows read in place (vpdpbusd);
// otherwise int16 panels (vpmaddwd on AVX2/AVX-512BW, portable loops elsewhere).
// matmul on a block kernel with many rows and K deeper than a tile packs one kernel-wide panel of
// up to kMaxDeepPanelRows k rows at a time into the unit's weight buffer (deep panels; K split into
// equal slices when deeper), so each block keeps its accumulators in registers across all of
// them: the same chain of fmas, far fewer loads and stores of C. One kernel call runs every row
// through a panel, and packs weight rows with unit column stride itself (bfloat16 ones widened)
// while its first block reads them; other weights are packed first.
#pragma once
#include "float_kernel.hpp"
#include "int_kernel.hpp"
#include "runtime/tensor/tensor.hpp"

namespace rt {

inline constexpr unsigned kMaxMxuTile = 128;
// The deepest panel of k rows matmul hands a block kernel at once (a 32-wide panel: 128 KiB).
inline constexpr unsigned kMaxDeepPanelRows = 1024;

enum class MxuMode : uint8_t { kOverwrite, kAccumulate };

class Mxu {
 public:
  // `tile` is the unit's size (at most kMaxMxuTile); boards choose it, 128 by default. The float
  // kernel is the fastest this CPU runs unless one is given (tests and benchmarks pick each).
  explicit Mxu(unsigned tile = kMaxMxuTile);
  Mxu(unsigned tile, const FloatKernel& float_kernel);
  Mxu(unsigned tile, const FloatKernel& float_kernel, const IntKernel& int_kernel);

  unsigned tile() const { return tile_; }
  const FloatKernel& float_kernel() const { return *kernel_; }
  const IntKernel& int_kernel() const { return *int_kernel_; }
  // Loads weights [k_rows, n_cols] (k_rows, n_cols <= tile; float32, bfloat16 or int8; any strides).
  Status load_weights(const Tensor& weights);
  // accumulators[m, n] (float32, or int32 for int8) op= activations[m, :] x weights[:, n];
  // activations are [m, k_rows] of the weights' dtype, any strides; accumulators [m, n_cols].
  Status stream(const Tensor& activations, const Tensor& accumulators, MxuMode mode);

 private:
  friend Status matmul(Mxu& mxu, const Tensor& a, const Tensor& b, const Tensor& c);
  // k rows per deep panel for a K of `k_rows`: K in the fewest equal slices a kernel-wide panel of
  // which fits the buffer.
  unsigned deep_panel_rows(int64_t k_rows) const;
  // matmul's deep-panel path (see above); a, b, c already checked by matmul and by deep_panels_fit.
  void matmul_deep_panels(const Tensor& a, const Tensor& b, const Tensor& c);
  void pack_float_weights(const Tensor& weights);
  void pack_float_weight_columns(const Tensor& weights);
  void stream_float_block(const Tensor& activations, int64_t m0, unsigned block, const Tensor& accumulators,
                          MxuMode mode);
  void pack_int_weights(const Tensor& weights);
  void pack_biased_weights(const Tensor& weights);
  void stream_int_block(const Tensor& activations, int64_t m0, unsigned block, const Tensor& accumulators,
                        MxuMode mode);
  void stream_biased_block(const Tensor& activations, int64_t m0, unsigned block, const Tensor& accumulators,
                           MxuMode mode);
  unsigned padded_k() const;  // k_rows_ rounded up to the int kernel's k group

  unsigned tile_;
  const FloatKernel* kernel_;
  const IntKernel* int_kernel_;
  DType dtype_ = DType::kF32;
  unsigned k_rows_ = 0;
  unsigned n_cols_ = 0;
  bool loaded_ = false;
  // Weights as the datapath sees them: float32 panels (float32 and bfloat16 inputs; panel p holds
  // columns [p * columns, (p + 1) * columns) k-major, zero past the last column) or int8 inputs in
  // the int kernel's layout (int_kernel.hpp): int16 panels, or int8 panels and their corrections.
  // Also holds matmul's deep panels (kMaxDeepPanelRows x kMaxKernelColumns).
  static constexpr unsigned kFloatPanelFloats = kMaxMxuTile * (kMaxMxuTile + kMaxKernelColumns) >
                                                        kMaxDeepPanelRows * kMaxKernelColumns
                                                    ? kMaxMxuTile * (kMaxMxuTile + kMaxKernelColumns)
                                                    : kMaxDeepPanelRows * kMaxKernelColumns;
  alignas(64) float float_panels_[kFloatPanelFloats];
  // Activation rows packed for kernels that want them k-major; zero-initialised (padding slots).
  alignas(64) float packed_activations_[kMaxPackedKStride * kMaxMxuTile] = {};
  struct BiasedPanels {
    int8_t weights[(kMaxMxuTile + 3) / 4 * 4 * (kMaxMxuTile + kMaxIntKernelColumns)];
    int32_t corrections[kMaxMxuTile + kMaxIntKernelColumns];
  };
  union IntPanels {
    int16_t wide[(kMaxMxuTile + 1) * (kMaxMxuTile + kMaxInt16KernelColumns)];
    BiasedPanels biased;
  };
  alignas(64) IntPanels int_panels_;
};

// C[M, N] = A[M, K] x B[K, N] on `mxu`, tile by tile: for every column tile of B, the K tiles in
// ascending order, the first overwriting C and the others accumulating. Every NaN in a float32 C
// is then the canonical quiet NaN 0x7fc00000 (the hardware's NaN payloads differ between ISAs). A and B share a dtype;
// C is float32 (int32 for int8). Shapes are checked; any M, K, N (zero included) works. matmul
// uses the unit's weight buffer: afterwards no weights are loaded (stream fails until load_weights).
Status matmul(Mxu& mxu, const Tensor& a, const Tensor& b, const Tensor& c);

}  // namespace rt
