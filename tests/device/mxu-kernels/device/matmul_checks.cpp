// The kernels through the public API: rt::matmul on an Mxu built with the kernel under test (K split
// into tiles, the first overwriting C and the rest accumulating; every NaN canonical), and
// Mxu::load_weights / stream directly (overwrite and accumulate onto C's values). Shapes are random
// around the tile and the kernel's block; A and B are row-major or transposed (column-major, the
// MXU's element-by-element packing), C contiguous or every other column of a wider buffer (whose
// gaps must survive). Every C element against the naive loop.
#include "runtime/dtype/half.hpp"
#include "hal/support/new.hpp"
#include "runtime/tensor/arena.hpp"
#include "suite.hpp"
#include "runtime/mxu/board_tile.hpp"

namespace mxu_kernels {
namespace {

using rt::DType;

alignas(rt::Mxu) uint8_t mxu_storage[sizeof(rt::Mxu)];  // one unit, rebuilt for each kernel (core 0 only)

// A tile that is no multiple of any kernel's block, so that every tile ends in partial panels.
constexpr unsigned kOddTile = 40;

struct Case {
  DType dtype;
  int64_t m, k, n;
  unsigned tile;
  bool transposed_a, transposed_b, strided_c;
  bool direct;      // Mxu::load_weights + stream instead of rt::matmul (K, N within one tile)
  bool accumulate;  // direct only: stream in accumulate mode onto C's values
  FloatFill float_fill;
  IntFill int_fill;
};

// A [rows, cols] matrix of `dtype` in scratch memory: row-major, or stored column-major (strides
// {1, rows}) when transposed.
rt::Result<rt::Tensor> matrix(DType dtype, int64_t rows, int64_t cols, bool transposed) {
  rt::Tensor t;
  t.dtype = dtype;
  const int64_t dims[] = {rows, cols};
  t.shape = RT_TRY(rt::Shape::make(dims));
  t.strides[0] = transposed ? 1 : cols;
  t.strides[1] = transposed ? rows : 1;
  t.data = RT_TRY(scratch<uint8_t>(static_cast<size_t>(rows * cols) * rt::dtype_size(dtype)));
  return t;
}

uint8_t* element(const rt::Tensor& t, int64_t row, int64_t col) {
  return t.data + (row * t.strides[0] + col * t.strides[1]) * static_cast<int64_t>(t.element_size());
}

void fill(const rt::Tensor& t, const Case& test, bool weights, Random& random) {
  for (int64_t row = 0; row < t.shape.dims[0]; ++row)
    for (int64_t col = 0; col < t.shape.dims[1]; ++col) {
      uint8_t* p = element(t, row, col);
      if (t.dtype == DType::kI8) {
        *reinterpret_cast<int8_t*>(p) = random_int8(random, test.int_fill, weights);
        continue;
      }
      const FloatFill fill = weights && test.float_fill == FloatFill::kNegativeZeros ? FloatFill::kNormal : test.float_fill;
      const uint32_t bits = bits_of(random_float(random, fill));
      if (t.dtype == DType::kBF16) {
        const uint16_t high = static_cast<uint16_t>(bits >> 16);
        __builtin_memcpy(p, &high, 2);
      } else {
        __builtin_memcpy(p, &bits, 4);
      }
    }
}

float float_at(const rt::Tensor& t, int64_t row, int64_t col) {
  const uint8_t* p = element(t, row, col);
  if (t.dtype == DType::kBF16) {
    uint16_t high;
    __builtin_memcpy(&high, p, 2);
    return float_of(uint32_t{high} << 16);  // bfloat16 widens exactly: the high half of a float32
  }
  float value;
  __builtin_memcpy(&value, p, 4);
  return value;
}

uint32_t int_at(const rt::Tensor& t, int64_t row, int64_t col) {
  return static_cast<uint32_t>(int32_t{*reinterpret_cast<const int8_t*>(element(t, row, col))});
}

// C[row][col] from `start` (its bits): the fma chain in k order, or the int32 sum mod 2^32.
uint32_t reference(const rt::Tensor& a, const rt::Tensor& b, int64_t row, int64_t col, uint32_t start) {
  const int64_t k_size = a.shape.dims[1];
  if (a.dtype == DType::kI8) {
    uint32_t acc = start;
    for (int64_t k = 0; k < k_size; ++k) acc += int_at(a, row, k) * int_at(b, k, col);
    return acc;
  }
  float acc = float_of(start);
  for (int64_t k = 0; k < k_size; ++k) acc = __builtin_fmaf(float_at(a, row, k), float_at(b, k, col), acc);
  return bits_of(acc);
}

const char* dtype_label(DType dtype) { return dtype == DType::kI8 ? "int8" : dtype == DType::kBF16 ? "bf16" : "f32"; }

rt::Status check_case(const rt::FloatKernel& float_kernel, const rt::IntKernel& int_kernel, const Case& test,
                      Random& random) {
  rt::ArenaScope scope(rt::hbm());
  const char* kernel_name = test.dtype == DType::kI8 ? int_kernel.name : float_kernel.name;
  const rt::Tensor a = RT_TRY(matrix(test.dtype, test.m, test.k, test.transposed_a));
  const rt::Tensor b = RT_TRY(matrix(test.dtype, test.k, test.n, test.transposed_b));
  fill(a, test, false, random);
  fill(b, test, true, random);
  // C: [m, n] of 32-bit words, every other column of a buffer one word wider per row when strided;
  // everything starts as junk (or the accumulate mode's start values), and what is not C must stay.
  const int64_t column_stride = test.strided_c ? 2 : 1, row_stride = test.n * column_stride + (test.strided_c ? 1 : 0);
  const size_t words = static_cast<size_t>(test.m * row_stride) + 8;
  uint32_t* c_words = RT_TRY(scratch<uint32_t>(words));
  uint32_t* want = RT_TRY(scratch<uint32_t>(words));
  for (size_t i = 0; i < words; ++i) {
    c_words[i] = test.dtype == DType::kI8 ? static_cast<uint32_t>(random.next())
                                          : bits_of(random_float(random, test.float_fill == FloatFill::kNormal
                                                                             ? FloatFill::kNormal
                                                                             : FloatFill::kSpecials));
    want[i] = c_words[i];
  }
  rt::Tensor c;
  c.dtype = test.dtype == DType::kI8 ? DType::kI32 : DType::kF32;
  const int64_t c_dims[] = {test.m, test.n};
  c.shape = RT_TRY(rt::Shape::make(c_dims));
  c.strides[0] = row_stride;
  c.strides[1] = column_stride;
  c.data = reinterpret_cast<uint8_t*>(c_words);
  for (int64_t row = 0; row < test.m; ++row)
    for (int64_t col = 0; col < test.n; ++col) {
      uint32_t& slot = want[row * row_stride + col * column_stride];
      slot = reference(a, b, row, col, test.accumulate ? slot : 0u);
      if (!test.direct && c.dtype == DType::kF32 && is_nan(slot)) slot = 0x7fc00000u;  // matmul's canonical NaN
    }
  rt::Mxu& mxu = *new (mxu_storage) rt::Mxu(test.tile, float_kernel, int_kernel);
  if (test.direct) {
    RT_RETURN_IF_ERROR(mxu.load_weights(b));
    RT_RETURN_IF_ERROR(mxu.stream(a, c, test.accumulate ? rt::MxuMode::kAccumulate : rt::MxuMode::kOverwrite));
  } else {
    RT_RETURN_IF_ERROR(rt::matmul(mxu, a, b, c));
  }
  for (size_t i = 0; i < words; ++i) {
    const int64_t row = static_cast<int64_t>(i) / row_stride, offset = static_cast<int64_t>(i) % row_stride;
    const bool result = row < test.m && offset % column_stride == 0 && offset / column_stride < test.n;
    // The kernels' NaNs are the ISA's (any NaN matches); matmul's are canonical (exact bits).
    const bool ok = (result && test.direct && c.dtype == DType::kF32) ? same_result(c_words[i], want[i])
                                                                       : c_words[i] == want[i];
    if (ok) continue;
    return rt::internal_error("{} kernel {} through {} (tile {}): {} [{}, {}]{} x [{}, {}]{} -> C{}, {} fill: "
                              "C[{}][{}]{} is 0x{:08x}, expected 0x{:08x}",
                              test.dtype == DType::kI8 ? "int" : "float", kernel_name,
                              test.direct ? (test.accumulate ? "Mxu::stream (accumulate)" : "Mxu::stream (overwrite)")
                                          : "rt::matmul",
                              test.tile, dtype_label(test.dtype), test.m, test.k, test.transposed_a ? "^T" : "", test.k,
                              test.n, test.transposed_b ? "^T" : "", test.strided_c ? " (every other column)" : "",
                              test.dtype == DType::kI8 ? fill_name(test.int_fill) : fill_name(test.float_fill), row,
                              result ? offset / column_stride : offset, result ? "" : " (not C: must stay untouched)",
                              c_words[i], want[i]);
  }
  return rt::Status::ok();
}

template <size_t N>
int64_t pick(Random& random, const int64_t (&values)[N]) {
  const int64_t value = values[random.below(N)];
  return value < 1 ? 1 : value;
}

// A case with M around the kernel's rows, N around its columns and the tile, K around the tile.
Case random_case(DType dtype, unsigned rows, unsigned columns, unsigned index, Random& random) {
  Case test{};
  test.dtype = dtype;
  test.tile = index % 3 == 2 ? kOddTile : rt::kMxuTile;
  const int64_t r = rows, w = columns, t = test.tile;
  test.direct = index % 4 == 3;
  test.accumulate = test.direct && random.coin();
  const int64_t m_values[] = {1, r - 1, r, r + 1, 2 * r + 1, 1 + random.below(3 * rows + 4)};
  test.m = pick(random, m_values);
  if (test.direct) {  // one tile: K, N <= tile
    const int64_t k_values[] = {1, 2, t - 1, t, 1 + random.below(test.tile)};
    const int64_t n_values[] = {1, w - 1, w, w + 1, t, 1 + random.below(test.tile)};
    test.k = random.below(8) == 0 ? 0 : pick(random, k_values);
    test.n = pick(random, n_values);
    if (test.n > t) test.n = t;  // a kernel wider than the tile
  } else {
    const int64_t k_values[] = {1, 2, 17, t - 1, t, t + 1, 2 * t + 3, 1 + random.below(2 * test.tile + 8)};
    const int64_t n_values[] = {1, w - 1, w, w + 1, t - 1, t, t + 1, t + w + 3, 1 + random.below(test.tile + 2 * columns)};
    test.k = random.below(10) == 0 ? 0 : pick(random, k_values);
    test.n = pick(random, n_values);
  }
  test.transposed_a = random.coin();
  test.transposed_b = random.coin();
  test.strided_c = random.below(3) == 0;
  test.float_fill = index % 4 == 1 ? FloatFill::kSpecials : index % 8 == 6 ? FloatFill::kNegativeZeros : FloatFill::kNormal;
  const IntFill int_fills[] = {IntFill::kRandom, IntFill::kExtremes, IntFill::kMinimum, IntFill::kMaximum,
                               IntFill::kMinTimesMax};
  test.int_fill = int_fills[index % 5];
  return test;
}

constexpr unsigned kCasesPerDtype = 28;  // 21 through rt::matmul, 7 through Mxu::stream

}  // namespace

rt::Status check_float_matmuls(const rt::FloatKernel& float_kernel, const rt::IntKernel& int_kernel, Random& random,
                               unsigned& cases) {
  for (DType dtype : {DType::kF32, DType::kBF16})
    for (unsigned i = 0; i < kCasesPerDtype; ++i) {
      RT_RETURN_IF_ERROR(check_case(float_kernel, int_kernel, random_case(dtype, float_kernel.rows, float_kernel.columns, i, random),
                                    random));
      ++cases;
    }
  return rt::Status::ok();
}

rt::Status check_int_matmuls(const rt::FloatKernel& float_kernel, const rt::IntKernel& int_kernel, Random& random,
                             unsigned& cases) {
  for (unsigned i = 0; i < kCasesPerDtype; ++i) {
    RT_RETURN_IF_ERROR(
        check_case(float_kernel, int_kernel, random_case(DType::kI8, int_kernel.rows, int_kernel.columns, i, random), random));
    ++cases;
  }
  // K long enough for the int32 sums to wrap, through many K tiles (all -128: 2^14 per step).
  Case wrap{};
  wrap.dtype = DType::kI8;
  wrap.m = int_kernel.rows + 1;
  wrap.n = int_kernel.columns + 1;
  wrap.k = (int64_t{1} << 17) + 5;
  wrap.tile = rt::kMxuTile;
  wrap.transposed_a = true;
  wrap.int_fill = IntFill::kMinimum;
  RT_RETURN_IF_ERROR(check_case(float_kernel, int_kernel, wrap, random));
  ++cases;
  return rt::Status::ok();
}

}  // namespace mxu_kernels
