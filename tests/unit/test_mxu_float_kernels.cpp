// The float32 micro-kernels (runtime/mxu/float_kernel.hpp) at their own interface and through the
// MXU, against a naive loop of std::fma in k order: every kernel this CPU runs (NEON on AArch64,
// AVX-512 / AVX2 on x86-64, the portable one everywhere), K = 0, 1 and every remainder of the
// kernels' k unrolling, accumulate on and off, each activation layout a kernel accepts (rows in
// place with several row strides, k-major, strided both ways), c rows with padding (which must
// stay untouched), signed zeros, infinities and denormals; and matmul shapes whose M, N and K are
// not multiples of the kernel's block, with A and B transposed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "runtime/dtype/half.hpp"
#include "runtime/mxu/mxu.hpp"

namespace {

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Equal bits, except that any NaN matches any NaN (which NaN an fma returns is the ISA's choice;
// matmul canonicalises them afterwards).
bool same_bits(float x, float y) { return std::isnan(x) || std::isnan(y) ? std::isnan(x) && std::isnan(y) : bits(x) == bits(y); }

float random_value(std::mt19937& random, bool specials) {
  if (specials) {
    switch (random() % 16) {
      case 0: return 0.0f;
      case 1: return -0.0f;  // with +0 starts, products of -0 test the sign of zero sums
      case 2: return random() % 2 ? INFINITY : -INFINITY;
      case 3: return std::ldexp(1.0f, -140);  // denormal
      default: break;
    }
  }
  std::uniform_real_distribution<float> real(-4.0f, 4.0f);
  return real(random) * static_cast<float>(1 << (random() % 8));
}

// One call of kernel.run on an activation layout given by its strides (element (r, k) at
// a[r * row_stride + k * k_stride]), compared with the naive loop over the whole c buffer.
void check_kernel_call(const rt::FloatKernel& kernel, unsigned k_rows, int64_t row_stride, int64_t k_stride,
                       int64_t c_row_stride, bool accumulate, bool specials, std::mt19937& random) {
  INFO("kernel " << kernel.name << " K " << k_rows << " a strides " << row_stride << ", " << k_stride << " c row stride "
                 << c_row_stride << (accumulate ? " accumulate" : " overwrite") << (specials ? " specials" : ""));
  const unsigned rows = kernel.rows, columns = kernel.columns;
  const size_t a_size = static_cast<size_t>((rows - 1) * row_stride + (k_rows == 0 ? 0 : (k_rows - 1) * k_stride) + 1);
  std::vector<float> a(std::max<size_t>(a_size, size_t{k_rows} * kernel.packed_k_stride) + 1);
  std::vector<float> w(static_cast<size_t>(k_rows) * columns + 1);
  for (float& x : a) x = random_value(random, specials);
  for (float& x : w) x = random_value(random, specials);
  if (kernel.packed_k_stride != 0)  // packed slots past `rows` are zero (float_kernel.hpp)
    for (unsigned k = 0; k < k_rows; ++k)
      for (unsigned r = rows; r < kernel.packed_k_stride; ++r) a[k * kernel.packed_k_stride + r] = 0.0f;
  std::vector<float> c(static_cast<size_t>(rows * c_row_stride) + 7);
  for (float& x : c) x = random_value(random, specials);
  std::vector<float> expected = c;
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned j = 0; j < columns; ++j) {
      float acc = accumulate ? expected[r * c_row_stride + j] : 0.0f;
      for (unsigned k = 0; k < k_rows; ++k) acc = std::fma(a[r * row_stride + k * k_stride], w[k * columns + j], acc);
      expected[r * c_row_stride + j] = acc;
    }
  kernel.run(a.data(), row_stride, k_stride, w.data(), k_rows, c.data(), c_row_stride, accumulate);
  for (size_t i = 0; i < c.size(); ++i) {
    INFO("c[" << i / c_row_stride << "][" << i % c_row_stride << "]: " << c[i] << ", the naive loop gives " << expected[i]);
    REQUIRE(same_bits(c[i], expected[i]));
  }
}

}  // namespace

TEST_CASE("every float kernel equals the naive fma loop at its interface: K edges, layouts, c strides", "[mxu]") {
  std::mt19937 random(1313);
  // 0, 1, and every remainder of 2-, 4-, 8-, 12- and 24-step unrolling, around the MXU tile sizes.
  const unsigned k_list[] = {0,  1,  2,  3,  4,  5,  7,  8,  9,  11, 12, 13, 15, 16, 17, 20,  23,  24,  25,
                             27, 28, 31, 32, 33, 36, 40, 47, 48, 49, 52, 63, 64, 65, 96, 127, 128, 129, 200};
  for (const rt::FloatKernel* kernel : rt::float_kernels_for_this_cpu()) {
    const int64_t rows = kernel->rows, columns = kernel->columns;
    for (unsigned k : k_list)
      for (bool accumulate : {false, true})
        for (bool specials : {false, true})
          for (int64_t c_row_stride : {columns, columns + 1, 3 * columns + 5}) {
            if (kernel->packed_k_stride != 0) {
              check_kernel_call(*kernel, k, 1, kernel->packed_k_stride, c_row_stride, accumulate, specials, random);
              continue;
            }
            const int64_t k_rows = k;
            check_kernel_call(*kernel, k, k_rows, 1, c_row_stride, accumulate, specials, random);       // rows in place
            check_kernel_call(*kernel, k, k_rows + 3, 1, c_row_stride, accumulate, specials, random);   // padded rows
            check_kernel_call(*kernel, k, 1, rows, c_row_stride, accumulate, specials, random);         // k-major, packed
            check_kernel_call(*kernel, k, 1, 8, c_row_stride, accumulate, specials, random);            // k-major, 8 per step
            check_kernel_call(*kernel, k, 1, rows + 3, c_row_stride, accumulate, specials, random);     // k-major, padded
            check_kernel_call(*kernel, k, 3, 3 * rows + 1, c_row_stride, accumulate, specials, random); // strided
            check_kernel_call(*kernel, k, 2 * k_rows + 1, 2, c_row_stride, accumulate, specials, random);
          }
  }
}

namespace {

struct Operand {
  rt::DType dtype;
  int64_t rows, cols;
  std::vector<uint8_t> bytes;  // row-major, or column-major when `transposed`
  bool transposed = false;

  float at(int64_t r, int64_t c) const {
    const int64_t i = transposed ? c * rows + r : r * cols + c;
    if (dtype == rt::DType::kBF16) {
      uint16_t b;
      std::memcpy(&b, &bytes[2 * i], 2);
      return rt::to_float(rt::BFloat16{b});
    }
    float f;
    std::memcpy(&f, &bytes[4 * i], 4);
    return f;
  }
  rt::Tensor view() {
    if (!transposed) {
      const int64_t dims[] = {rows, cols};
      return rt::Tensor::contiguous(dtype, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), bytes.data());
    }
    const int64_t dims[] = {cols, rows};
    const unsigned swap[] = {1, 0};
    return *rt::Tensor::contiguous(dtype, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), bytes.data())
                .transpose(rt::Span<const unsigned>(swap, 2));
  }
};

Operand random_operand(rt::DType dtype, int64_t rows, int64_t cols, bool transposed, std::mt19937& random) {
  Operand o{dtype, rows, cols, std::vector<uint8_t>(static_cast<size_t>(rows * cols) * rt::dtype_size(dtype) + 1), transposed};
  for (int64_t i = 0; i < rows * cols; ++i) {
    const float v = random_value(random, false);
    if (dtype == rt::DType::kBF16) {
      const uint16_t b = rt::to_bfloat16(v).bits;
      std::memcpy(&o.bytes[2 * i], &b, 2);
    } else {
      std::memcpy(&o.bytes[4 * i], &v, 4);
    }
  }
  return o;
}

void check_edge_matmul(rt::Mxu& mxu, rt::DType dtype, int64_t m, int64_t k, int64_t n, bool transposed_a,
                       bool transposed_b, std::mt19937& random) {
  INFO("kernel " << mxu.float_kernel().name << " tile " << mxu.tile() << " " << rt::dtype_name(dtype) << " M " << m << " K "
                 << k << " N " << n << (transposed_a ? " A transposed" : "") << (transposed_b ? " B transposed" : ""));
  Operand a = random_operand(dtype, m, k, transposed_a, random);
  Operand b = random_operand(dtype, k, n, transposed_b, random);
  std::vector<float> c(static_cast<size_t>(m * n) + 1, 1234.5f);
  const int64_t dims[] = {m, n};
  REQUIRE(rt::matmul(mxu, a.view(), b.view(),
                     rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), c.data()))
              .is_ok());
  for (int64_t row = 0; row < m; ++row)
    for (int64_t col = 0; col < n; ++col) {
      float acc = 0.0f;
      for (int64_t i = 0; i < k; ++i) acc = std::fma(a.at(row, i), b.at(i, col), acc);
      INFO("C[" << row << "][" << col << "]");
      REQUIRE(bits(c[row * n + col]) == bits(acc));
    }
  REQUIRE(c[m * n] == 1234.5f);  // nothing written past the end
}

}  // namespace

TEST_CASE("every float kernel through the MXU: M, N, K around its block and the tile, K = 1", "[mxu]") {
  std::mt19937 random(1314);
  for (const rt::FloatKernel* kernel : rt::float_kernels_for_this_cpu()) {
    const int64_t rows = kernel->rows, columns = kernel->columns;
    for (unsigned tile : {16u, 128u}) {
      auto mxu = std::make_unique<rt::Mxu>(tile, *kernel);
      const int64_t ms[] = {1, rows - 1, rows, rows + 1, 2 * rows + 3};
      const int64_t ns[] = {1, columns - 1, columns, columns + 1, 2 * columns + 5};
      const int64_t ks[] = {1, 2, 13, 25, tile, tile + 1, 2 * tile + 7};
      for (rt::DType dtype : {rt::DType::kF32, rt::DType::kBF16})
        for (int64_t m : ms)
          for (int64_t n : ns)
            for (int64_t k : ks) {
              if (m <= 0 || n <= 0) continue;
              const unsigned layout = random() % 4;
              check_edge_matmul(*mxu, dtype, m, k, n, layout & 1, layout & 2, random);
            }
    }
  }
}
