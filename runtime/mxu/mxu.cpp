// The MXU datapath: weight loading with conversion, and the streaming kernel (k ascending, vector
// over n). See mxu.hpp for the numerics contract.
#include "mxu.hpp"

#include "runtime/dtype/half.hpp"
#include "runtime/support/unaligned.hpp"

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

// Register blocking of the float kernel: kRowBlock activation rows by kColumnBlock accumulator
// columns stay in registers across the whole k loop. The column block is sized to the target's
// vector unit; the compiler vectorises the column loop.
#if defined(__AVX512F__)
constexpr unsigned kColumnBlock = 32;
#elif defined(__AVX2__)
constexpr unsigned kColumnBlock = 16;
#else
constexpr unsigned kColumnBlock = 8;
#endif
constexpr unsigned kRowBlock = 4;

// Every step is an explicit fused multiply-add (__builtin_fmaf: one rounding), so the numerics do
// not depend on the optimiser or on the build's -ffp-contract setting; vectorised, it becomes the
// target's vector fma (vfmadd, fmla, or scalar fmadd.s on rv64gc).
void kernel_block(const float* const* rows, const float* __restrict weights, unsigned k_rows, unsigned tile,
                  float (*acc)[kMaxMxuTile], unsigned n0) {
  float c[kRowBlock][kColumnBlock];
  for (unsigned r = 0; r < kRowBlock; ++r)
    for (unsigned j = 0; j < kColumnBlock; ++j) c[r][j] = acc[r][n0 + j];
  for (unsigned k = 0; k < k_rows; ++k) {
    const float* __restrict w = weights + k * tile + n0;
    for (unsigned r = 0; r < kRowBlock; ++r) {
      const float x = rows[r][k];
      for (unsigned j = 0; j < kColumnBlock; ++j) c[r][j] = __builtin_fmaf(x, w[j], c[r][j]);
    }
  }
  for (unsigned r = 0; r < kRowBlock; ++r)
    for (unsigned j = 0; j < kColumnBlock; ++j) acc[r][n0 + j] = c[r][j];
}

// The same arithmetic for leftover rows and columns, one element at a time.
void kernel_scalar(const float* __restrict row, const float* __restrict weights, unsigned k_rows, unsigned tile,
                   float* __restrict acc, unsigned n_begin, unsigned n_end) {
  for (unsigned n = n_begin; n < n_end; ++n) {
    float c = acc[n];
    for (unsigned k = 0; k < k_rows; ++k) c = __builtin_fmaf(row[k], weights[k * tile + n], c);
    acc[n] = c;
  }
}

// Up to kRowBlock activation rows through the float tile.
void stream_rows_float(const float (*rows)[kMaxMxuTile], unsigned row_count, const float* weights, unsigned k_rows,
                       unsigned n_cols, unsigned tile, float (*acc)[kMaxMxuTile]) {
  unsigned n = 0;
  if (row_count == kRowBlock) {
    const float* row_pointers[kRowBlock] = {rows[0], rows[1], rows[2], rows[3]};
    for (; n + kColumnBlock <= n_cols; n += kColumnBlock) kernel_block(row_pointers, weights, k_rows, tile, acc, n);
  }
  for (unsigned r = 0; r < row_count; ++r) kernel_scalar(rows[r], weights, k_rows, tile, acc[r], n, n_cols);
}

void stream_row_int(const int32_t* __restrict a, const int32_t* __restrict weights, unsigned k_rows, unsigned n_cols,
                    unsigned tile, int32_t* __restrict acc) {
  for (unsigned k = 0; k < k_rows; ++k) {
    const uint32_t x = static_cast<uint32_t>(a[k]);
    const int32_t* __restrict w = weights + k * tile;
    for (unsigned n = 0; n < n_cols; ++n)  // unsigned arithmetic: wraps instead of overflowing
      acc[n] = static_cast<int32_t>(static_cast<uint32_t>(acc[n]) + x * static_cast<uint32_t>(w[n]));
  }
}

}  // namespace

Mxu::Mxu(unsigned tile) : tile_(tile == 0 || tile > kMaxMxuTile ? kMaxMxuTile : tile) {}

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
  for (int64_t k = 0; k < k_rows; ++k)
    for (int64_t n = 0; n < n_cols; ++n) {
      if (dtype_ == DType::kI8)
        int_weights_[k * tile_ + n] = element_as_int(weights, k, n);
      else
        float_weights_[k * tile_ + n] = element_as_float(weights, k, n);
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
  alignas(64) int32_t int_row[kMaxMxuTile];
  alignas(64) int32_t int_acc[kMaxMxuTile];
  alignas(64) float float_rows[kRowBlock][kMaxMxuTile];
  alignas(64) float float_acc[kRowBlock][kMaxMxuTile];
  const int64_t out_stride = accumulators.strides[1] * 4;
  const auto output_row = [&](int64_t m) { return accumulators.data + m * accumulators.strides[0] * 4; };
  if (dtype_ == DType::kI8) {
    for (int64_t m = 0; m < rows; ++m) {
      uint8_t* out = output_row(m);
      for (unsigned k = 0; k < k_rows_; ++k) int_row[k] = element_as_int(activations, m, k);
      for (unsigned n = 0; n < n_cols_; ++n)
        int_acc[n] = mode == MxuMode::kOverwrite ? 0 : *reinterpret_cast<const int32_t*>(out + n * out_stride);
      stream_row_int(int_row, int_weights_, k_rows_, n_cols_, tile_, int_acc);
      for (unsigned n = 0; n < n_cols_; ++n) __builtin_memcpy(out + n * out_stride, &int_acc[n], 4);
    }
    return Status::ok();
  }
  for (int64_t m0 = 0; m0 < rows; m0 += kRowBlock) {
    const unsigned block = static_cast<unsigned>(rows - m0 < kRowBlock ? rows - m0 : kRowBlock);
    for (unsigned r = 0; r < block; ++r) {
      uint8_t* out = output_row(m0 + r);
      for (unsigned k = 0; k < k_rows_; ++k) float_rows[r][k] = element_as_float(activations, m0 + r, k);
      for (unsigned n = 0; n < n_cols_; ++n) {
        float start = 0.0f;
        if (mode == MxuMode::kAccumulate) __builtin_memcpy(&start, out + n * out_stride, 4);
        float_acc[r][n] = start;
      }
    }
    stream_rows_float(float_rows, block, float_weights_, k_rows_, n_cols_, tile_, float_acc);
    for (unsigned r = 0; r < block; ++r) {
      uint8_t* out = output_row(m0 + r);
      for (unsigned n = 0; n < n_cols_; ++n) __builtin_memcpy(out + n * out_stride, &float_acc[r][n], 4);
    }
  }
  return Status::ok();
}

Status matmul(Mxu& mxu, const Tensor& a, const Tensor& b, const Tensor& c) {
  if (a.shape.rank != 2 || b.shape.rank != 2 || c.shape.rank != 2)
    return invalid_argument("matmul needs rank-2 operands, got ranks {}, {}, {}", a.shape.rank, b.shape.rank, c.shape.rank);
  if (a.dtype != b.dtype)
    return invalid_argument("matmul operands have different dtypes: {} and {}", dtype_name(a.dtype), dtype_name(b.dtype));
  const int64_t m = a.shape.dims[0], k = a.shape.dims[1], n = b.shape.dims[1];
  if (b.shape.dims[0] != k || c.shape.dims[0] != m || c.shape.dims[1] != n)
    return invalid_argument("matmul shapes do not fit: [{}, {}] x [{}, {}] -> [{}, {}]", m, k, b.shape.dims[0], n,
                            c.shape.dims[0], c.shape.dims[1]);
  const int64_t tile = mxu.tile();
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
      Result<Tensor> weights = b.slice(0, k0, k1);
      if (!weights) return weights.status();
      Result<Tensor> weight_tile = weights->slice(1, n0, n1);
      if (!weight_tile) return weight_tile.status();
      RT_RETURN_IF_ERROR(mxu.load_weights(*weight_tile));
      Result<Tensor> activations = a.slice(1, k0, k1);
      if (!activations) return activations.status();
      RT_RETURN_IF_ERROR(mxu.stream(*activations, *c_columns, k0 == 0 ? MxuMode::kOverwrite : MxuMode::kAccumulate));
    }
  }
  return Status::ok();
}

}  // namespace rt
