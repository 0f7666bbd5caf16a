// The MXU datapath: weight loading (conversion to float32 and packing into kernel-wide panels),
// streaming activations through the float micro-kernel (float_kernel.hpp) block by block, and the
// int8 path. See mxu.hpp for the numerics contract. With a block kernel (FloatKernel::run_block,
// AVX-512 on x86-64) the float path has no edge buffers and reads float32 and bfloat16 activations
// in place, and matmul reads float32 weight tiles in place where packing them would not pay.
#include "mxu.hpp"

#include "runtime/dtype/half.hpp"
#include "runtime/dtype/input_type_error.hpp"
#include "hal/support/unaligned.hpp"
#include "runtime/trace/trace_point.hpp"

namespace rt {
namespace {

float element_as_float(const Tensor& t, int64_t row, int64_t col) {
  const uint8_t* p = t.data + (row * t.strides[0] + col * t.strides[1]) * static_cast<int64_t>(t.element_size());
  if (t.dtype == DType::kBF16) return to_float(BFloat16{load_unaligned<uint16_t>(p)});
  return load_unaligned<float>(p);
}

int32_t element_as_int(const Tensor& t, int64_t row, int64_t col) {
  return *reinterpret_cast<const int8_t*>(t.data + row * t.strides[0] + col * t.strides[1]);
}

bool mxu_input(DType dtype) { return dtype == DType::kF32 || dtype == DType::kBF16 || dtype == DType::kI8; }
DType accumulator_type(DType input) { return input == DType::kI8 ? DType::kI32 : DType::kF32; }

// True if `t` is of `dtype` with unit column stride, aligned to its elements: rows the datapath
// copies (or a kernel reads) as plain arrays.
bool contiguous_rows(const Tensor& t, DType dtype) {
  return t.dtype == dtype && t.strides[1] == 1 && reinterpret_cast<uintptr_t>(t.data) % t.element_size() == 0;
}

// Float32 matrix whose columns are contiguous (and rows are not): a transposed view.
bool contiguous_columns(const Tensor& t) {
  return t.dtype == DType::kF32 && t.strides[0] == 1 && t.strides[1] != 1 &&
         reinterpret_cast<uintptr_t>(t.data) % t.element_size() == 0;
}

// The activations a block kernel (FloatKernel::run_block) reads where they lie: float32 aligned
// (any strides), and bfloat16 rows with unit k stride through its bfloat16 entry.
bool float32_in_place(const Tensor& activations) {
  return activations.dtype == DType::kF32 && reinterpret_cast<uintptr_t>(activations.data) % alignof(float) == 0;
}
bool bfloat16_rows_in_place(const FloatKernel& kernel, const Tensor& activations) {
  return kernel.run_block_bf16 != nullptr && contiguous_rows(activations, DType::kBF16);
}

// Where the kernel reads activation rows m0 .. m0 + block of a float32 tensor in place, or null
// when they must be packed (another dtype, a partial block, or a kernel that wants them k-major).
const float* activations_in_place(const Tensor& activations, int64_t m0, unsigned block, const FloatKernel& kernel) {
  if (activations.dtype != DType::kF32 || block != kernel.rows || kernel.packed_k_stride != 0) return nullptr;
  if (reinterpret_cast<uintptr_t>(activations.data) % alignof(float) != 0) return nullptr;
  return reinterpret_cast<const float*>(activations.data) + m0 * activations.strides[0];
}

// A full block of float32 rows with unit k stride (aligned), k-major with Stride floats per k: the
// row pointers stay in registers and each k step gathers one element from each row (constants, so
// the gather is unrolled). Slots past Rows are left alone: the buffer starts zeroed and nothing
// but the slow path below writes them (with zeros).
template <unsigned Rows, unsigned Stride>
void pack_float32_block(const Tensor& activations, int64_t m0, unsigned k_rows, float* __restrict packed) {
  const float* in[Rows];
#pragma GCC unroll 8
  for (unsigned r = 0; r < Rows; ++r) in[r] = reinterpret_cast<const float*>(activations.data) + (m0 + r) * activations.strides[0];
  for (unsigned k = 0; k < k_rows; ++k, packed += Stride) {
#pragma GCC unroll 8
    for (unsigned r = 0; r < Rows; ++r) packed[r] = in[r][k];
  }
}

// The same for bfloat16 rows (2-byte aligned, unit k stride): each element widened exactly by
// putting its bits into the top half of a float32.
template <unsigned Rows, unsigned Stride>
void pack_bfloat16_block(const Tensor& activations, int64_t m0, unsigned k_rows, float* __restrict packed) {
  const uint16_t* in[Rows];
#pragma GCC unroll 8
  for (unsigned r = 0; r < Rows; ++r) in[r] = reinterpret_cast<const uint16_t*>(activations.data) + (m0 + r) * activations.strides[0];
  float* out = packed;
  for (unsigned k = 0; k < k_rows; ++k, out += Stride) {
#pragma GCC unroll 8
    for (unsigned r = 0; r < Rows; ++r) out[r] = __builtin_bit_cast(float, uint32_t{in[r][k]} << 16);
  }
}

// Activation rows m0 .. m0 + block as float32, k-major (packed[k * stride + r]); rows past the
// block and slots past `rows` are zero (their results are discarded).
void pack_activations(const Tensor& activations, int64_t m0, unsigned block, unsigned k_rows, unsigned rows,
                      unsigned stride, float* packed) {
  if (block == rows && contiguous_rows(activations, DType::kF32)) {
    if (rows == 4 && stride == 4) return pack_float32_block<4, 4>(activations, m0, k_rows, packed);
    if (rows == 6 && stride == 8) return pack_float32_block<6, 8>(activations, m0, k_rows, packed);
    if (rows == 8 && stride == 8) return pack_float32_block<8, 8>(activations, m0, k_rows, packed);
  }
  if (block == rows && contiguous_rows(activations, DType::kBF16)) {
    if (rows == 8 && stride == 8) return pack_bfloat16_block<8, 8>(activations, m0, k_rows, packed);
  }
  const int64_t element = static_cast<int64_t>(activations.element_size());
  const int64_t k_step = activations.strides[1] * element;
  for (unsigned r = 0; r < stride; ++r) {
    float* out = packed + r;
    if (r >= block) {
      for (unsigned k = 0; k < k_rows; ++k, out += stride) *out = 0.0f;
      continue;
    }
    const uint8_t* in = activations.data + (m0 + r) * activations.strides[0] * element;
    if (activations.dtype == DType::kF32)
      for (unsigned k = 0; k < k_rows; ++k, in += k_step, out += stride) *out = load_unaligned<float>(in);
    else
      for (unsigned k = 0; k < k_rows; ++k, in += k_step, out += stride) *out = to_float(BFloat16{load_unaligned<uint16_t>(in)});
  }
}

void widen_bfloat16(const uint16_t* __restrict from, float* __restrict to, unsigned count) {
  for (unsigned i = 0; i < count; ++i) to[i] = __builtin_bit_cast(float, uint32_t{from[i]} << 16);
}

void copy_floats(const float* __restrict from, float* __restrict to, unsigned count) {
  for (unsigned i = 0; i < count; ++i) to[i] = from[i];
}

// Where a block kernel (FloatKernel::run_block) reads float32 activation rows m0 .. m0 + block: in
// place (any strides) when aligned, else copied row-major into `scratch` (block x k_rows floats);
// bfloat16 rows that the kernel cannot read in place are widened into it the same way.
struct ActivationRows {
  const float* a;
  int64_t row_stride, k_stride;
};

ActivationRows activation_rows(const Tensor& activations, int64_t m0, unsigned block, unsigned k_rows, float* scratch) {
  if (float32_in_place(activations))
    return {reinterpret_cast<const float*>(activations.data) + m0 * activations.strides[0], activations.strides[0],
            activations.strides[1]};
  for (unsigned r = 0; r < block; ++r)
    for (unsigned k = 0; k < k_rows; ++k) scratch[r * k_rows + k] = element_as_float(activations, m0 + r, k);
  return {scratch, k_rows, 1};
}

// Activations small enough to stay in L1 (with a panel of weights and its slab of C) while every
// panel streams past all of them: up to kL1ActivationBytes of float32 read in place. A few rows
// (a training step's shard) against a wide weight tile then read each panel once, where a block of
// rows at a time would read the whole tile again for every block (from L2 once it outgrows L1).
constexpr int64_t kL1ActivationBytes = 12 * 1024;
bool activations_fit_l1(const Tensor& activations, unsigned k_rows) {
  return float32_in_place(activations) && activations.shape.dims[0] * int64_t{k_rows} * 4 <= kL1ActivationBytes;
}

// stream_blocks for activations_fit_l1: panel by panel, each one kernel call over every row (the
// kernel walks them a block at a time). The same products as block by block, so the same bits.
void stream_panels(const FloatKernel& kernel, const Tensor& activations, unsigned k_rows, const float* w,
                   int64_t w_row_stride, int64_t panel_stride, unsigned n_cols, float* c, int64_t c_row_stride,
                   bool accumulate) {
  const float* a = reinterpret_cast<const float*>(activations.data);
  const unsigned rows = static_cast<unsigned>(activations.shape.dims[0]);
  for (unsigned n0 = 0; n0 < n_cols; n0 += kernel.columns, w += panel_stride) {
    const unsigned width = n_cols - n0 < kernel.columns ? n_cols - n0 : kernel.columns;
    kernel.run_block(a, activations.strides[0], activations.strides[1], {w, w_row_stride}, k_rows, rows, width, c + n0,
                     c_row_stride, accumulate, nullptr);
  }
}

// accumulators (op)= activations x weights through a block kernel: every block of up to
// kernel.rows activation rows against every panel of up to kernel.columns columns, ragged edges
// included, straight into the accumulators (float32, unit column stride, aligned). Panel p's
// weight (k, j) is at w[p * panel_stride + k * w_row_stride + j]: the packed panels, or a weight
// tile read in place. Activations are read in place: float32 rows, and bfloat16 rows with unit k
// stride through the kernel's bfloat16 entry; others are widened a block at a time into `scratch`.
// Each block's rows stay in L1 while the panels stream past them.
void stream_blocks(const FloatKernel& kernel, const Tensor& activations, unsigned k_rows, const float* w,
                   int64_t w_row_stride, int64_t panel_stride, unsigned n_cols, float* c, int64_t c_row_stride,
                   bool accumulate, float* scratch) {
  const int64_t rows = activations.shape.dims[0];
  if (activations_fit_l1(activations, k_rows))
    return stream_panels(kernel, activations, k_rows, w, w_row_stride, panel_stride, n_cols, c, c_row_stride, accumulate);
  const bool bf16_rows = bfloat16_rows_in_place(kernel, activations);
  for (int64_t m0 = 0; m0 < rows; m0 += kernel.rows) {
    const unsigned block = static_cast<unsigned>(rows - m0 < kernel.rows ? rows - m0 : kernel.rows);
    float* c_block = c + m0 * c_row_stride;
    const float* panel = w;
    if (bf16_rows) {
      const uint16_t* a = reinterpret_cast<const uint16_t*>(activations.data) + m0 * activations.strides[0];
      for (unsigned n0 = 0; n0 < n_cols; n0 += kernel.columns, panel += panel_stride) {
        const unsigned width = n_cols - n0 < kernel.columns ? n_cols - n0 : kernel.columns;
        kernel.run_block_bf16(a, activations.strides[0], {panel, w_row_stride}, k_rows, block, width, c_block + n0,
                              c_row_stride, accumulate, nullptr);
      }
      continue;
    }
    const ActivationRows a = activation_rows(activations, m0, block, k_rows, scratch);
    for (unsigned n0 = 0; n0 < n_cols; n0 += kernel.columns, panel += panel_stride) {
      const unsigned width = n_cols - n0 < kernel.columns ? n_cols - n0 : kernel.columns;
      kernel.run_block(a.a, a.row_stride, a.k_stride, {panel, w_row_stride}, k_rows, block, width, c_block + n0,
                       c_row_stride, accumulate, nullptr);
    }
  }
}

bool block_kernel_fits(const FloatKernel& kernel, const Tensor& accumulators) {
  return kernel.run_block != nullptr && accumulators.dtype == DType::kF32 && accumulators.strides[1] == 1 &&
         reinterpret_cast<uintptr_t>(accumulators.data) % alignof(float) == 0;
}

// matmul reads float32 weight tiles in place (a block kernel takes them with the matrix's row
// stride) instead of loading them into the unit when packing would not pay: for a few activation
// rows (up to kMaxRowsForWeightsInPlace: copying a tile costs about as much as their products), and
// for weights whose rows are close together (up to kMaxWeightStrideInPlace floats apart: a tile's
// rows then fall in distinct cache sets and few pages, so they stream as well as packed panels).
// Wider rows with many activation rows are packed: a power-of-two stride maps a tile's rows onto a
// few cache sets and a page each, and reading them in place costs more than the copy.
constexpr int64_t kMaxRowsForWeightsInPlace = 16;
constexpr int64_t kMaxWeightStrideInPlace = 256;

// True when matmul(a, b, c) reads b's tiles in place: float32 everywhere (checked as the unit
// would), b's rows contiguous, a and c aligned, c with unit column stride, and packing not paying.
bool weights_read_in_place(const FloatKernel& kernel, const Tensor& a, const Tensor& b, const Tensor& c) {
  return float32_in_place(a) && contiguous_rows(b, DType::kF32) && block_kernel_fits(kernel, c) &&
         (a.shape.dims[0] <= kMaxRowsForWeightsInPlace || b.strides[0] <= kMaxWeightStrideInPlace);
}

// True when matmul(a, b, c) goes through deep panels (Mxu::matmul_deep_panels): a block kernel
// writing c in place, K deeper than one tile, more rows than reading weights in place suits (and
// no more than one kernel call takes), and activations the kernel reads in place (a deep panel's
// rows would not fit the unit's activation buffer).
bool deep_panels_fit(const FloatKernel& kernel, unsigned tile, const Tensor& a, const Tensor& b, const Tensor& c) {
  const int64_t rows = a.shape.dims[0];
  return block_kernel_fits(kernel, c) && b.shape.dims[0] > tile && rows > kMaxRowsForWeightsInPlace &&
         rows <= int64_t{UINT32_MAX} && (float32_in_place(a) || bfloat16_rows_in_place(kernel, a));
}

// Activation rows m0 .. m0 + block widened to int16 in the int kernel's layout (int_kernel.hpp):
// groups of k_group k steps, rows past the block and k past k_rows zero.
void pack_int_activations(const Tensor& activations, int64_t m0, unsigned block, unsigned k_rows, unsigned k_steps,
                          const IntKernel& kernel, int16_t* packed) {
  const unsigned rows = kernel.rows, group = kernel.k_group;
  for (unsigned k = 0; k < k_steps; ++k)
    for (unsigned r = 0; r < rows; ++r)
      packed[((k / group) * rows + r) * group + k % group] =
          static_cast<int16_t>(r < block && k < k_rows ? element_as_int(activations, m0 + r, k) : 0);
}

// Activation rows m0 .. m0 + block as int8, row-major with k_steps bytes per row (the kBiasedBytes
// layout, int_kernel.hpp), k past k_rows zero: for rows the kernel cannot read in place.
void pack_int8_activations(const Tensor& activations, int64_t m0, unsigned block, unsigned k_rows, unsigned k_steps,
                           int8_t* __restrict packed) {
  for (unsigned r = 0; r < block; ++r, packed += k_steps) {
    const int8_t* in = reinterpret_cast<const int8_t*>(activations.data) + (m0 + r) * activations.strides[0];
    const int64_t k_stride = activations.strides[1];
    unsigned k = 0;
    for (; k < k_rows; ++k) packed[k] = in[k * k_stride];
    for (; k < k_steps; ++k) packed[k] = 0;
  }
}

// True if any of `count` floats (as bits) is a NaN. |x| > infinity as bits, without a compare: the
// sign bit of (|x| + 0x007fffff) is set exactly for NaNs. Eight lanes at a time with GCC vector
// extensions (AVX2 on the host, two NEON / SSE registers elsewhere, plain registers on rv64gc),
// so the common case costs little.
bool any_nan(const uint32_t* bits, int64_t count) {
  typedef uint32_t Lanes __attribute__((vector_size(32)));
  const auto nan_bit = [](auto x) { return ((x & 0x7fffffffu) + 0x007fffffu) >> 31; };
  Lanes found = {};
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    Lanes lanes;
    __builtin_memcpy(&lanes, bits + i, sizeof lanes);
    found |= nan_bit(lanes);
  }
  uint32_t any = 0;
  for (unsigned lane = 0; lane < 8; ++lane) any |= found[lane];
  for (; i < count; ++i) any |= nan_bit(bits[i]);
  return any != 0;
}

// Rewrites every NaN in float32 `c` as the canonical quiet NaN 0x7fc00000: which NaN an fma
// returns differs between x86, Arm and RISC-V, so this keeps matmul's bits equal on every board.
// Rows with unit column stride are scanned first and rewritten only if they hold a NaN.
void canonicalise_nans(const Tensor& c) {
  const bool rows_contiguous = c.strides[1] == 1 && reinterpret_cast<uintptr_t>(c.data) % alignof(uint32_t) == 0;
  for (int64_t row = 0; row < c.shape.dims[0]; ++row) {
    uint8_t* row_data = c.data + row * c.strides[0] * 4;
    if (rows_contiguous && !any_nan(reinterpret_cast<const uint32_t*>(row_data), c.shape.dims[1])) continue;
    for (int64_t col = 0; col < c.shape.dims[1]; ++col) {
      uint8_t* element = row_data + col * c.strides[1] * 4;
      const float value = load_unaligned<float>(element);
      if (value != value) store_unaligned(element, kCanonicalNanF32);
    }
  }
}

}  // namespace

Mxu::Mxu(unsigned tile) : Mxu(tile, *float_kernels_for_this_cpu()[0]) {}

Mxu::Mxu(unsigned tile, const FloatKernel& float_kernel) : Mxu(tile, float_kernel, *int_kernels_for_this_cpu()[0]) {}

Mxu::Mxu(unsigned tile, const FloatKernel& float_kernel, const IntKernel& int_kernel)
    : tile_(tile == 0 || tile > kMaxMxuTile ? kMaxMxuTile : tile), kernel_(&float_kernel), int_kernel_(&int_kernel) {}

unsigned Mxu::padded_k() const {
  const unsigned group = int_kernel_->k_group;
  return (k_rows_ + group - 1) / group * group;
}

// Panels of int_kernel_->columns columns, int16, k in groups of k_group (int_kernel.hpp).
void Mxu::pack_int_weights(const Tensor& weights) {
  if (int_kernel_->layout == IntLayout::kBiasedBytes) return pack_biased_weights(weights);
  const unsigned width = int_kernel_->columns, group = int_kernel_->k_group, k_steps = padded_k();
  int16_t* panel = int_panels_.wide;
  for (unsigned n0 = 0; n0 < n_cols_; n0 += width, panel += k_steps * width)
    for (unsigned k = 0; k < k_steps; ++k)
      for (unsigned j = 0; j < width; ++j)
        panel[((k / group) * width + j) * group + k % group] =
            static_cast<int16_t>(k < k_rows_ && n0 + j < n_cols_ ? element_as_int(weights, k, n0 + j) : 0);
}

// Panels of int_kernel_->columns columns, int8, k in groups of 4, each with its corrections
// (-128 x its column sums; int_kernel.hpp): through the kernel's own packing where the weights'
// rows are contiguous, element by element otherwise.
void Mxu::pack_biased_weights(const Tensor& weights) {
  const IntKernel& kernel = *int_kernel_;
  const unsigned width = kernel.columns, k_steps = padded_k();
  int8_t* panel = int_panels_.biased.weights;
  int32_t* correction = int_panels_.biased.corrections;
  const bool rows_contiguous = weights.strides[1] == 1 && kernel.pack_biased_panel != nullptr;
  for (unsigned n0 = 0; n0 < n_cols_; n0 += width, panel += k_steps * width, correction += width) {
    const unsigned valid = n_cols_ - n0 < width ? n_cols_ - n0 : width;
    if (rows_contiguous) {
      kernel.pack_biased_panel(reinterpret_cast<const int8_t*>(weights.data) + n0, weights.strides[0], k_rows_, valid,
                               panel, correction);
      continue;
    }
    for (unsigned j = 0; j < width; ++j) {
      uint32_t sum = 0;
      for (unsigned k = 0; k < k_steps; ++k) {
        const int32_t value = k < k_rows_ && j < valid ? element_as_int(weights, k, n0 + j) : 0;
        panel[((k / 4) * width + j) * 4 + k % 4] = static_cast<int8_t>(value);
        sum += static_cast<uint32_t>(value);
      }
      correction[j] = static_cast<int32_t>((0u - sum) << 7);
    }
  }
}

// Float32 weights whose columns are contiguous (a transposed view, matmul's transpose_b): each
// column is read in one run into its place of its panel (the same panel layout as below).
void Mxu::pack_float_weight_columns(const Tensor& weights) {
  const unsigned width = kernel_->columns;
  const unsigned k_rows = static_cast<unsigned>(weights.shape.dims[0]);
  const unsigned n_cols = static_cast<unsigned>(weights.shape.dims[1]);
  const float* in = reinterpret_cast<const float*>(weights.data);
  float* panel = float_panels_;
  for (unsigned n0 = 0; n0 < n_cols; n0 += width, panel += int64_t{k_rows} * width) {
    const unsigned valid = n_cols - n0 < width ? n_cols - n0 : width;
    for (unsigned j = 0; j < valid; ++j) {
      const float* column = in + (n0 + j) * weights.strides[1];
      for (unsigned k = 0; k < k_rows; ++k) panel[k * width + j] = column[k];
    }
    for (unsigned k = 0; k < k_rows; ++k)
      for (unsigned j = valid; j < width; ++j) panel[k * width + j] = 0.0f;
  }
}

// Panel p holds columns [p * w, p * w + w) k-major (w = the kernel's width), zero past the
// weights' last column; their shape gives the rows and columns (a tile, or one deep panel).
// Rows of float32 (or bfloat16) weights with unit column stride are copied (widened) a weight row
// at a time into every panel, full panels with a fixed-size copy.
void Mxu::pack_float_weights(const Tensor& weights) {
  const unsigned width = kernel_->columns;
  const unsigned k_rows = static_cast<unsigned>(weights.shape.dims[0]);
  const unsigned n_cols = static_cast<unsigned>(weights.shape.dims[1]);
  const int64_t panel_size = int64_t{k_rows} * width;
  if (contiguous_columns(weights)) return pack_float_weight_columns(weights);
  const bool rows_contiguous = contiguous_rows(weights, DType::kF32);
  const bool bf16_rows_contiguous = contiguous_rows(weights, DType::kBF16);
  for (unsigned k = 0; k < k_rows; ++k) {
    float* out = float_panels_ + k * width;
    for (unsigned n0 = 0; n0 < n_cols; n0 += width, out += panel_size) {
      const unsigned valid = n_cols - n0 < width ? n_cols - n0 : width;
      // Loops the compiler vectorises, not memcpy (a libc call costs more than 64 bytes); full
      // panels of the usual widths with a constant count (no loop tails).
      if (rows_contiguous) {
        const float* in = reinterpret_cast<const float*>(weights.data) + k * weights.strides[0] + n0;
        if (valid == 32 && width == 32)
          copy_floats(in, out, 32);
        else if (valid == 16 && width == 16)
          copy_floats(in, out, 16);
        else
          copy_floats(in, out, valid);
      } else if (bf16_rows_contiguous) {
        const uint16_t* in = reinterpret_cast<const uint16_t*>(weights.data) + k * weights.strides[0] + n0;
        if (valid == 32 && width == 32)
          widen_bfloat16(in, out, 32);
        else if (valid == 16 && width == 16)
          widen_bfloat16(in, out, 16);
        else
          widen_bfloat16(in, out, valid);
      } else {
        for (unsigned j = 0; j < valid; ++j) out[j] = element_as_float(weights, k, n0 + j);
      }
      for (unsigned j = valid; j < width; ++j) out[j] = 0.0f;
    }
  }
}

unsigned Mxu::deep_panel_rows(int64_t k_rows) const {
  const int64_t fits = kFloatPanelFloats / kernel_->columns;
  const int64_t capacity = fits < kMaxDeepPanelRows ? fits : kMaxDeepPanelRows;
  const int64_t slices = (k_rows + capacity - 1) / capacity;
  return static_cast<unsigned>((k_rows + slices - 1) / slices);
}

// For every deep slice of k (ascending), all activation rows go through every kernel-wide panel of
// columns in one kernel call, the first slice overwriting c and the others adding to it: per
// element of c the same fmas in the same order as tile by tile. Weight rows with unit column
// stride (float32, or bfloat16 widened) are packed by the kernel itself as its first block reads
// them (FloatKernel::run_block's pack_to); others are packed into the panel first.
void Mxu::matmul_deep_panels(const Tensor& a, const Tensor& b, const Tensor& c) {
  const FloatKernel& kernel = *kernel_;
  const int64_t m = a.shape.dims[0], k = a.shape.dims[1], n = b.shape.dims[1];
  const unsigned depth = deep_panel_rows(k), width = kernel.columns;
  const bool bf16_rows = bfloat16_rows_in_place(kernel, a);
  for (int64_t k0 = 0; k0 < k; k0 += depth) {
    const unsigned rows = static_cast<unsigned>(k - k0 < depth ? k - k0 : depth);
    const Tensor activations = *a.slice(1, k0, k0 + rows);  // in range: k0 + rows <= k
    for (int64_t n0 = 0; n0 < n; n0 += width) {
      const unsigned valid = static_cast<unsigned>(n - n0 < width ? n - n0 : width);
      const Tensor weights = *b.slice(0, k0, k0 + rows)->slice(1, n0, n0 + valid);  // one panel: `rows` x `valid`
      const bool kernel_packs = contiguous_rows(weights, DType::kF32) || contiguous_rows(weights, DType::kBF16);
      if (!kernel_packs) pack_float_weights(weights);
      const BlockWeights w = kernel_packs ? BlockWeights{weights.data, weights.strides[0], weights.dtype == DType::kBF16}
                                          : BlockWeights{float_panels_, width};
      float* pack_to = kernel_packs ? float_panels_ : nullptr;
      float* c_panel = reinterpret_cast<float*>(c.data) + n0;
      if (bf16_rows)
        kernel.run_block_bf16(reinterpret_cast<const uint16_t*>(activations.data), activations.strides[0], w, rows,
                              static_cast<unsigned>(m), valid, c_panel, c.strides[0], k0 != 0, pack_to);
      else
        kernel.run_block(reinterpret_cast<const float*>(activations.data), activations.strides[0],
                         activations.strides[1], w, rows, static_cast<unsigned>(m), valid, c_panel, c.strides[0],
                         k0 != 0, pack_to);
    }
  }
}

Status Mxu::load_weights(const Tensor& weights) {
  if (weights.shape.rank != 2) return invalid_argument("MXU weights must have rank 2, got rank {}", weights.shape.rank);
  if (!mxu_input(weights.dtype))
    return invalid_argument("MXU weights of dtype {} are not supported (float32, bfloat16, int8)", dtype_name(weights.dtype));
  const int64_t k_rows = weights.shape.dims[0];
  const int64_t n_cols = weights.shape.dims[1];
  if (k_rows > tile_ || n_cols > tile_)
    return invalid_argument("MXU weight tile {}x{} exceeds the {}x{} unit", k_rows, n_cols, tile_, tile_);
  dtype_ = weights.dtype;
  k_rows_ = static_cast<unsigned>(k_rows);
  n_cols_ = static_cast<unsigned>(n_cols);
  if (dtype_ == DType::kI8) {
    pack_int_weights(weights);
  } else {
    pack_float_weights(weights);
  }
  loaded_ = true;
  return Status::ok();
}

Status Mxu::stream(const Tensor& activations, const Tensor& accumulators, MxuMode mode) {
  if (!loaded_) return Status::error(StatusCode::kFailedPrecondition, "MXU stream before any weights were loaded");
  if (activations.shape.rank != 2 || accumulators.shape.rank != 2)
    return invalid_argument("MXU activations and accumulators must have rank 2");
  if (activations.dtype != dtype_)
    return invalid_argument("MXU activations are {}, the loaded weights {}", dtype_name(activations.dtype),
                            dtype_name(dtype_));
  if (accumulators.dtype != accumulator_type(dtype_))
    return invalid_argument("MXU accumulators for {} inputs must be {}, got {}", dtype_name(dtype_),
                            dtype_name(accumulator_type(dtype_)), dtype_name(accumulators.dtype));
  const int64_t rows = activations.shape.dims[0];
  if (activations.shape.dims[1] != k_rows_ || accumulators.shape.dims[0] != rows || accumulators.shape.dims[1] != n_cols_)
    return invalid_argument("MXU shapes do not fit: activations [{}, {}], weights [{}, {}], accumulators [{}, {}]", rows,
                            activations.shape.dims[1], k_rows_, n_cols_, accumulators.shape.dims[0],
                            accumulators.shape.dims[1]);
  if (dtype_ == DType::kI8) {
    const bool biased = int_kernel_->layout == IntLayout::kBiasedBytes;
    for (int64_t m0 = 0; m0 < rows; m0 += int_kernel_->rows) {
      const unsigned block = static_cast<unsigned>(rows - m0 < int_kernel_->rows ? rows - m0 : int_kernel_->rows);
      if (biased)
        stream_biased_block(activations, m0, block, accumulators, mode);
      else
        stream_int_block(activations, m0, block, accumulators, mode);
    }
    return Status::ok();
  }
  if (block_kernel_fits(*kernel_, accumulators)) {
    stream_blocks(*kernel_, activations, k_rows_, float_panels_, kernel_->columns, int64_t{k_rows_} * kernel_->columns,
                  n_cols_, reinterpret_cast<float*>(accumulators.data), accumulators.strides[0],
                  mode == MxuMode::kAccumulate, packed_activations_);
    return Status::ok();
  }
  for (int64_t m0 = 0; m0 < rows; m0 += kernel_->rows) {
    const unsigned block = static_cast<unsigned>(rows - m0 < kernel_->rows ? rows - m0 : kernel_->rows);
    stream_float_block(activations, m0, block, accumulators, mode);
  }
  return Status::ok();
}

// One block of activation rows through every weight panel. Full blocks of a float32 accumulator
// with unit column stride are updated in place; edges go through a small buffer: the kernel
// overwrites it (or, accumulating, adds to the block's values copied in); the lanes past the block
// and width hold whatever an earlier panel or run_narrow left there and are never copied back.
void Mxu::stream_float_block(const Tensor& activations, int64_t m0, unsigned block, const Tensor& accumulators,
                             MxuMode mode) {
  const FloatKernel& kernel = *kernel_;
  float* packed = packed_activations_;
  alignas(64) float edge[kMaxKernelRows * kMaxKernelColumns];
  const float* a = activations_in_place(activations, m0, block, kernel);
  int64_t a_row_stride = activations.strides[0], a_k_stride = activations.strides[1];
  if (a == nullptr) {
    const unsigned stride = kernel.packed_k_stride != 0 ? kernel.packed_k_stride : kernel.rows;
    pack_activations(activations, m0, block, k_rows_, kernel.rows, stride, packed);
    a = packed;
    a_row_stride = 1;
    a_k_stride = stride;
  }
  const bool accumulate = mode == MxuMode::kAccumulate;
  if (accumulate) __builtin_memset(edge, 0, sizeof edge);
  float* c_rows = reinterpret_cast<float*>(accumulators.data) + m0 * accumulators.strides[0];
  const int64_t c_row_stride = accumulators.strides[0], c_column_stride = accumulators.strides[1];
  const bool accumulators_aligned = reinterpret_cast<uintptr_t>(accumulators.data) % alignof(float) == 0;
  const float* panel = float_panels_;
  for (unsigned n0 = 0; n0 < n_cols_; n0 += kernel.columns, panel += k_rows_ * kernel.columns) {
    const unsigned width = n_cols_ - n0 < kernel.columns ? n_cols_ - n0 : kernel.columns;
    float* c = c_rows + n0 * c_column_stride;
    if (block == kernel.rows && width == kernel.columns && c_column_stride == 1 && accumulators_aligned) {
      kernel.run(a, a_row_stride, a_k_stride, panel, k_rows_, c, c_row_stride, accumulate);
      continue;
    }
    if (accumulate)
      for (unsigned r = 0; r < block; ++r)
        for (unsigned j = 0; j < width; ++j)
          edge[r * kernel.columns + j] = load_unaligned<float>(c + r * c_row_stride + j * c_column_stride);
    if (kernel.run_narrow != nullptr && width < kernel.columns)
      kernel.run_narrow(a, a_row_stride, a_k_stride, panel, k_rows_, width, edge, kernel.columns, accumulate);
    else
      kernel.run(a, a_row_stride, a_k_stride, panel, k_rows_, edge, kernel.columns, accumulate);
    for (unsigned r = 0; r < block; ++r)
      for (unsigned j = 0; j < width; ++j) store_unaligned(c + r * c_row_stride + j * c_column_stride, edge[r * kernel.columns + j]);
  }
}

namespace {

Status check_matmul_operands(const Tensor& a, const Tensor& b, const Tensor& c) {
  if (a.shape.rank != 2 || b.shape.rank != 2 || c.shape.rank != 2)
    return invalid_argument("matmul needs rank-2 operands, got ranks {}, {}, {}", a.shape.rank, b.shape.rank, c.shape.rank);
  if (a.dtype != b.dtype) return input_type_error("MatMul", 1, a.dtype, b.dtype);  // TF's text
  const int64_t m = a.shape.dims[0], k = a.shape.dims[1], n = b.shape.dims[1];
  if (b.shape.dims[0] != k)  // TF's eager text (shapes without spaces, as TF prints them there)
    return invalid_argument("Matrix size-incompatible: In[0]: [{},{}], In[1]: [{},{}]", m, k, b.shape.dims[0], n);
  if (c.shape.dims[0] != m || c.shape.dims[1] != n)
    return invalid_argument("matmul of [{}, {}] x [{}, {}] makes [{}, {}], not the output's [{}, {}]", m, k, k, n, m, n,
                            c.shape.dims[0], c.shape.dims[1]);
  return Status::ok();
}

// matmul through the unit tile by tile (load_weights, stream), or reading float32 tiles in place.
Status matmul_tiles(Mxu& mxu, const Tensor& a, const Tensor& b, const Tensor& c) {
  const int64_t m = a.shape.dims[0], k = a.shape.dims[1], n = b.shape.dims[1];
  const int64_t tile = mxu.tile();
  const bool weights_in_place = weights_read_in_place(mxu.float_kernel(), a, b, c);
  for (int64_t n0 = 0; n0 < n; n0 += tile) {
    const int64_t n1 = n0 + tile < n ? n0 + tile : n;
    Result<Tensor> c_columns = c.slice(1, n0, n1);
    if (!c_columns) return c_columns.status();
    if (k == 0 && m > 0) {  // an empty sum: zeros, through the unit's own overwrite path
      for (int64_t row = 0; row < m; ++row)
        for (int64_t col = n0; col < n1; ++col) {
          const uint32_t zero = 0;
          __builtin_memcpy(c.data + (row * c.strides[0] + col * c.strides[1]) * 4, &zero, 4);
        }
    }
    for (int64_t k0 = 0; k0 < k; k0 += tile) {
      const int64_t k1 = k0 + tile < k ? k0 + tile : k;
      Result<Tensor> activations = a.slice(1, k0, k1);
      if (!activations) return activations.status();
      if (weights_in_place) {  // the same products, the tile read where it lies instead of packed
        const FloatKernel& kernel = mxu.float_kernel();
        stream_blocks(kernel, *activations, static_cast<unsigned>(k1 - k0),
                      reinterpret_cast<const float*>(b.data) + k0 * b.strides[0] + n0, b.strides[0], kernel.columns,
                      static_cast<unsigned>(n1 - n0), reinterpret_cast<float*>(c.data) + n0, c.strides[0], k0 != 0,
                      nullptr);
        continue;
      }
      Result<Tensor> weights = b.slice(0, k0, k1);
      if (!weights) return weights.status();
      Result<Tensor> weight_tile = weights->slice(1, n0, n1);
      if (!weight_tile) return weight_tile.status();
      RT_RETURN_IF_ERROR(mxu.load_weights(*weight_tile));
      RT_RETURN_IF_ERROR(mxu.stream(*activations, *c_columns, k0 == 0 ? MxuMode::kOverwrite : MxuMode::kAccumulate));
    }
  }
  // Block kernels store NaNs canonical already (float_kernel.hpp), and they wrote all of C if it fits them.
  if (c.dtype == DType::kF32 && !block_kernel_fits(mxu.float_kernel(), c)) canonicalise_nans(c);
  return Status::ok();
}

}  // namespace

Status matmul(Mxu& mxu, const Tensor& a, const Tensor& b, const Tensor& c) {
  RT_TRACE_SCOPE("matmul", trace::Category::kCompute);
  Status status = check_matmul_operands(a, b, c);
  if (status.is_ok() && deep_panels_fit(mxu.float_kernel(), mxu.tile(), a, b, c))
    mxu.matmul_deep_panels(a, b, c);  // the block kernel stores every NaN canonical
  else if (status.is_ok())
    status = matmul_tiles(mxu, a, b, c);
  mxu.loaded_ = false;  // the weight buffer holds whatever matmul packed last, not a tile for stream()
  return status;
}

// One block of int8 activation rows through every int16 weight panel; like the float path, full
// blocks of an int32 accumulator with unit column stride are updated in place, edges through a buffer.
void Mxu::stream_int_block(const Tensor& activations, int64_t m0, unsigned block, const Tensor& accumulators,
                           MxuMode mode) {
  const IntKernel& kernel = *int_kernel_;
  const unsigned k_steps = padded_k();
  alignas(64) int16_t packed[kMaxIntKernelRows * (kMaxMxuTile + 1)];
  alignas(64) int32_t edge[kMaxIntKernelRows * kMaxInt16KernelColumns];
  pack_int_activations(activations, m0, block, k_rows_, k_steps, kernel, packed);
  const bool accumulate = mode == MxuMode::kAccumulate;
  int32_t* c_rows = reinterpret_cast<int32_t*>(accumulators.data) + m0 * accumulators.strides[0];
  const int64_t c_row_stride = accumulators.strides[0], c_column_stride = accumulators.strides[1];
  const bool aligned = reinterpret_cast<uintptr_t>(accumulators.data) % alignof(int32_t) == 0;
  const int16_t* panel = int_panels_.wide;
  for (unsigned n0 = 0; n0 < n_cols_; n0 += kernel.columns, panel += k_steps * kernel.columns) {
    const unsigned width = n_cols_ - n0 < kernel.columns ? n_cols_ - n0 : kernel.columns;
    int32_t* c = c_rows + n0 * c_column_stride;
    if (block == kernel.rows && width == kernel.columns && c_column_stride == 1 && aligned) {
      kernel.run(packed, panel, k_steps, c, c_row_stride, accumulate);
      continue;
    }
    for (unsigned r = 0; r < kernel.rows; ++r)
      for (unsigned j = 0; j < kernel.columns; ++j)
        edge[r * kernel.columns + j] =
            accumulate && r < block && j < width ? load_unaligned<int32_t>(c + r * c_row_stride + j * c_column_stride) : 0;
    kernel.run(packed, panel, k_steps, edge, kernel.columns, true);
    for (unsigned r = 0; r < block; ++r)
      for (unsigned j = 0; j < width; ++j) store_unaligned(c + r * c_row_stride + j * c_column_stride, edge[r * kernel.columns + j]);
  }
}

// One block of int8 activation rows through every int8 weight panel of a kBiasedBytes kernel.
// Rows with unit k stride and K a multiple of 4 are read in place, others copied (zero-padded) to a
// small buffer; full panels of an int32 accumulator with unit column stride are updated in place
// (any number of rows up to the kernel's), partial panels and other strides through a buffer.
void Mxu::stream_biased_block(const Tensor& activations, int64_t m0, unsigned block, const Tensor& accumulators,
                              MxuMode mode) {
  const IntKernel& kernel = *int_kernel_;
  const unsigned k_steps = padded_k();
  alignas(64) int8_t packed[kMaxIntKernelRows * ((kMaxMxuTile + 3) / 4 * 4)];
  alignas(64) int32_t edge[kMaxIntKernelRows * kMaxIntKernelColumns];
  const int8_t* a = reinterpret_cast<const int8_t*>(activations.data) + m0 * activations.strides[0];
  int64_t a_row_stride = activations.strides[0];
  if (activations.strides[1] != 1 || k_steps != k_rows_) {
    pack_int8_activations(activations, m0, block, k_rows_, k_steps, packed);
    a = packed;
    a_row_stride = k_steps;
  }
  const bool accumulate = mode == MxuMode::kAccumulate;
  int32_t* c_rows = reinterpret_cast<int32_t*>(accumulators.data) + m0 * accumulators.strides[0];
  const int64_t c_row_stride = accumulators.strides[0], c_column_stride = accumulators.strides[1];
  const bool aligned = reinterpret_cast<uintptr_t>(accumulators.data) % alignof(int32_t) == 0;
  const int8_t* panel = int_panels_.biased.weights;
  const int32_t* correction = int_panels_.biased.corrections;
  for (unsigned n0 = 0; n0 < n_cols_; n0 += kernel.columns, panel += k_steps * kernel.columns, correction += kernel.columns) {
    const unsigned width = n_cols_ - n0 < kernel.columns ? n_cols_ - n0 : kernel.columns;
    int32_t* c = c_rows + n0 * c_column_stride;
    if (width == kernel.columns && c_column_stride == 1 && aligned) {
      kernel.run_biased(a, a_row_stride, panel, correction, k_steps, block, c, c_row_stride, accumulate);
      continue;
    }
    for (unsigned r = 0; r < block; ++r)
      for (unsigned j = 0; j < kernel.columns; ++j)
        edge[r * kernel.columns + j] = accumulate && j < width ? load_unaligned<int32_t>(c + r * c_row_stride + j * c_column_stride) : 0;
    kernel.run_biased(a, a_row_stride, panel, correction, k_steps, block, edge, kernel.columns, true);
    for (unsigned r = 0; r < block; ++r)
      for (unsigned j = 0; j < width; ++j) store_unaligned(c + r * c_row_stride + j * c_column_stride, edge[r * kernel.columns + j]);
  }
}

}  // namespace rt
