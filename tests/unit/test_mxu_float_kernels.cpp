// The float32 micro-kernels (runtime/mxu/float_kernel.hpp) at their own interface and through the
// MXU, against a naive loop of std::fma in k order: every kernel this CPU runs (NEON on AArch64,
// AVX-512 / AVX2 on x86-64, the portable one everywhere), K = 0, 1 and every remainder of the
// kernels' k unrolling, accumulate on and off, each activation layout a kernel accepts (rows in
// place with several row strides, k-major, strided both ways), c rows with padding (which must
// stay untouched), signed zeros, infinities and denormals; and matmul shapes whose M, N and K are
// not multiples of the kernel's block, with A and B transposed. Block kernels (run_block,
// run_block_bf16: every row and column count, weights with any row stride, NaNs stored canonical)
// at their interface too, and matmul and load_weights / stream with weights packed and in place.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <bit>
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

// `size` random floats (with specials: zeros, infinities, denormals).
std::vector<float> random_floats(size_t size, bool specials, std::mt19937& random) {
  std::vector<float> values(size);
  for (float& x : values) x = random_value(random, specials);
  return values;
}

// The reference every kernel is checked against: c after the naive loop of std::fma in ascending k
// over rows x cols, c[r][j] = fma(a_at(r, k), w[k * w_row_stride + j], ...) starting from c[r][j]
// (accumulate) or +0; everything else in c as it was.
template <class ActivationAt>
std::vector<float> naive_result(std::vector<float> c, unsigned rows, unsigned cols, unsigned k_rows, ActivationAt a_at,
                                const std::vector<float>& w, int64_t w_row_stride, int64_t c_row_stride,
                                bool accumulate) {
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned j = 0; j < cols; ++j) {
      float acc = accumulate ? c[r * c_row_stride + j] : 0.0f;
      for (unsigned k = 0; k < k_rows; ++k) acc = std::fma(a_at(r, k), w[k * w_row_stride + j], acc);
      c[r * c_row_stride + j] = acc;
    }
  return c;
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
  std::vector<float> c = random_floats(static_cast<size_t>(rows * c_row_stride) + 7, specials, random);
  const std::vector<float> expected = naive_result(
      c, rows, columns, k_rows, [&](unsigned r, unsigned k) { return a[r * row_stride + k * k_stride]; }, w, columns,
      c_row_stride, accumulate);
  kernel.run(a.data(), row_stride, k_stride, w.data(), k_rows, c.data(), c_row_stride, accumulate);
  for (size_t i = 0; i < c.size(); ++i) {
    INFO("c[" << i / c_row_stride << "][" << i % c_row_stride << "]: " << c[i] << ", the naive loop gives " << expected[i]);
    REQUIRE(same_bits(c[i], expected[i]));
  }
}

// c after a block kernel call against the naive loop's `expected`: inside the block the same bits,
// NaNs as the canonical quiet NaN 0x7fc00000 (float_kernel.hpp); outside it every bit unchanged.
void check_block_result(const std::vector<float>& c, const std::vector<float>& expected, unsigned rows, unsigned cols,
                        int64_t c_row_stride) {
  for (size_t i = 0; i < c.size(); ++i) {
    const int64_t row = static_cast<int64_t>(i) / c_row_stride, col = static_cast<int64_t>(i) % c_row_stride;
    const bool in_block = row < rows && col < cols;
    INFO("c[" << row << "][" << col << "]" << (in_block ? "" : " (outside the block)") << ": " << c[i]
              << ", the naive loop gives " << expected[i]);
    if (in_block && std::isnan(expected[i]))
      REQUIRE(bits(c[i]) == 0x7fc00000u);
    else
      REQUIRE(bits(c[i]) == bits(expected[i]));
  }
}

// c for a block kernel call: rows past the block (at least one past the kernel's block) so that a
// write past the block shows, all random.
std::vector<float> random_block_c(const rt::FloatKernel& kernel, unsigned rows, int64_t c_row_stride, bool specials,
                                  std::mt19937& random) {
  return random_floats(static_cast<size_t>((std::max(rows, kernel.rows) + 1) * c_row_stride), specials, random);
}

// A buffer for run_block's pack_to (k_rows panel rows of kernel.columns floats) with a guard after
// it, or none; after the call, each row's first `cols` floats must be the weights' bits and the
// guard untouched.
struct PackedPanel {
  static constexpr uint32_t kGuard = 0x7f8abcdeu;  // a signalling NaN no kernel writes
  std::vector<float> floats;
  PackedPanel(bool wanted, const rt::FloatKernel& kernel, unsigned k_rows) {
    if (wanted) floats.assign(static_cast<size_t>(k_rows) * kernel.columns + 16, std::bit_cast<float>(kGuard));
  }
  float* data() { return floats.empty() ? nullptr : floats.data(); }
  void check(const rt::FloatKernel& kernel, const std::vector<float>& w, unsigned k_rows, unsigned cols,
             int64_t w_row_stride) const {
    if (floats.empty()) return;
    for (unsigned k = 0; k < k_rows; ++k)
      for (unsigned j = 0; j < cols; ++j) {
        INFO("packed weight [" << k << "][" << j << "]");
        REQUIRE(bits(floats[k * kernel.columns + j]) == bits(w[k * w_row_stride + j]));
      }
    for (size_t i = size_t{k_rows} * kernel.columns; i < floats.size(); ++i) REQUIRE(bits(floats[i]) == kGuard);
  }
};

// One call of kernel.run_block on `rows` x `cols` (weights with row stride w_row_stride, activations
// with the given strides; rows past kernel.rows are walked in blocks), compared with the naive loop
// over the whole c buffer: the block's elements must be the loop's, every other element (columns
// past the block, row padding, rows past the block) must keep its bits. With `pack`, the kernel
// also packs the weights it reads (pack_to).
void check_block_call(const rt::FloatKernel& kernel, unsigned k_rows, unsigned rows, unsigned cols, int64_t row_stride,
                      int64_t k_stride, int64_t w_row_stride, int64_t c_row_stride, bool accumulate, bool specials,
                      std::mt19937& random, bool pack = false) {
  INFO("kernel " << kernel.name << " block " << rows << "x" << cols << " K " << k_rows << " a strides " << row_stride
                 << ", " << k_stride << " w row stride " << w_row_stride << " c row stride " << c_row_stride
                 << (accumulate ? " accumulate" : " overwrite") << (specials ? " specials" : "")
                 << (pack ? " packing the weights" : ""));
  // Exactly as large as the block needs (nothing past its last element), so an over-read shows
  // under the sanitizers.
  const size_t a_size = static_cast<size_t>((rows - 1) * row_stride + (k_rows == 0 ? 0 : (k_rows - 1) * k_stride) + 1);
  const size_t w_size = k_rows == 0 ? 1 : static_cast<size_t>((k_rows - 1) * w_row_stride + cols);
  const std::vector<float> a = random_floats(a_size, specials, random), w = random_floats(w_size, specials, random);
  std::vector<float> c = random_block_c(kernel, rows, c_row_stride, specials, random);
  const std::vector<float> expected = naive_result(
      c, rows, cols, k_rows, [&](unsigned r, unsigned k) { return a[r * row_stride + k * k_stride]; }, w, w_row_stride,
      c_row_stride, accumulate);
  PackedPanel packed(pack, kernel, k_rows);
  kernel.run_block(a.data(), row_stride, k_stride, {w.data(), w_row_stride}, k_rows, rows, cols, c.data(), c_row_stride,
                   accumulate, packed.data());
  check_block_result(c, expected, rows, cols, c_row_stride);
  packed.check(kernel, w, k_rows, cols, w_row_stride);
}

// The same through kernel.run_block_bf16: bfloat16 activation rows (unit k stride) read in place,
// the buffer exactly as large as the block (its first element first), so a read before or past it
// shows under the sanitizers.
void check_block_bf16_call(const rt::FloatKernel& kernel, unsigned k_rows, unsigned rows, unsigned cols,
                           int64_t row_stride, int64_t w_row_stride, int64_t c_row_stride, bool accumulate,
                           bool specials, std::mt19937& random, bool pack = false) {
  INFO("kernel " << kernel.name << " bf16 block " << rows << "x" << cols << " K " << k_rows << " a row stride "
                 << row_stride << " w row stride " << w_row_stride << " c row stride " << c_row_stride
                 << (accumulate ? " accumulate" : " overwrite") << (specials ? " specials" : "")
                 << (pack ? " packing the weights" : ""));
  const size_t a_size = static_cast<size_t>((rows - 1) * row_stride + k_rows) + (k_rows == 0 ? 1 : 0);
  const size_t w_size = k_rows == 0 ? 1 : static_cast<size_t>((k_rows - 1) * w_row_stride + cols);
  std::vector<uint16_t> a(a_size);
  for (uint16_t& x : a) x = rt::to_bfloat16(random_value(random, specials)).bits;
  const std::vector<float> w = random_floats(w_size, specials, random);
  std::vector<float> c = random_block_c(kernel, rows, c_row_stride, specials, random);
  const std::vector<float> expected = naive_result(
      c, rows, cols, k_rows, [&](unsigned r, unsigned k) { return rt::to_float(rt::BFloat16{a[r * row_stride + k]}); },
      w, w_row_stride, c_row_stride, accumulate);
  PackedPanel packed(pack, kernel, k_rows);
  kernel.run_block_bf16(a.data(), row_stride, {w.data(), w_row_stride}, k_rows, rows, cols, c.data(), c_row_stride,
                        accumulate, packed.data());
  check_block_result(c, expected, rows, cols, c_row_stride);
  packed.check(kernel, w, k_rows, cols, w_row_stride);
}

// bfloat16 weights (row stride w_row_stride, the buffer exactly as large as they are) widened by
// the kernel into its packed panel while it runs `rows` rows of float32 activations (rows in
// place) or, with bf16_activations, bfloat16 ones: c against the naive loop on the widened values,
// the panel against the widened weights.
void check_bf16_weights_call(const rt::FloatKernel& kernel, unsigned k_rows, unsigned rows, unsigned cols,
                             int64_t w_row_stride, int64_t c_row_stride, bool accumulate, bool specials,
                             bool bf16_activations, std::mt19937& random) {
  INFO("kernel " << kernel.name << " bf16 weights, " << (bf16_activations ? "bf16" : "f32") << " activations, " << rows
                 << "x" << cols << " K " << k_rows << " w row stride " << w_row_stride << " c row stride "
                 << c_row_stride << (accumulate ? " accumulate" : " overwrite") << (specials ? " specials" : ""));
  const int64_t a_row_stride = k_rows + 1;
  std::vector<float> a(static_cast<size_t>((rows - 1) * a_row_stride + k_rows + 1));
  for (float& x : a) x = rt::to_float(rt::to_bfloat16(random_value(random, specials)));  // exact in bfloat16
  std::vector<uint16_t> a_bits(a.size());
  for (size_t i = 0; i < a.size(); ++i) a_bits[i] = rt::to_bfloat16(a[i]).bits;
  std::vector<uint16_t> w_bits(k_rows == 0 ? 1 : static_cast<size_t>((k_rows - 1) * w_row_stride + cols));
  std::vector<float> w(w_bits.size());
  for (size_t i = 0; i < w_bits.size(); ++i) {
    w_bits[i] = rt::to_bfloat16(random_value(random, specials)).bits;
    w[i] = rt::to_float(rt::BFloat16{w_bits[i]});
  }
  std::vector<float> c = random_block_c(kernel, rows, c_row_stride, specials, random);
  const std::vector<float> expected = naive_result(
      c, rows, cols, k_rows, [&](unsigned r, unsigned k) { return a[r * a_row_stride + k]; }, w, w_row_stride,
      c_row_stride, accumulate);
  PackedPanel packed(true, kernel, k_rows);
  const rt::BlockWeights weights{w_bits.data(), w_row_stride, true};
  if (bf16_activations)
    kernel.run_block_bf16(a_bits.data(), a_row_stride, weights, k_rows, rows, cols, c.data(), c_row_stride, accumulate,
                          packed.data());
  else
    kernel.run_block(a.data(), a_row_stride, 1, weights, k_rows, rows, cols, c.data(), c_row_stride, accumulate,
                     packed.data());
  check_block_result(c, expected, rows, cols, c_row_stride);
  packed.check(kernel, w, k_rows, cols, w_row_stride);
}

}  // namespace

TEST_CASE("every block kernel equals the naive fma loop: every row and column count, weight strides", "[mxu]") {
  std::mt19937 random(1315);
  for (const rt::FloatKernel* kernel : rt::float_kernels_for_this_cpu()) {
    if (kernel->run_block == nullptr) continue;
    const unsigned max_rows = kernel->rows, max_cols = kernel->columns;
    for (unsigned rows = 1; rows <= max_rows; ++rows)
      for (unsigned cols = 1; cols <= max_cols; ++cols) {
        const unsigned k = (rows * 7 + cols * 3) % 40;  // K = 0 .. 39 spread over the shapes
        const bool accumulate = (rows + cols) % 2 == 0, specials = cols % 3 == 0;
        const int64_t c_row_stride = max_cols + (cols % 4);
        check_block_call(*kernel, k, rows, cols, k, 1, cols, c_row_stride, accumulate, specials, random);
        check_block_call(*kernel, k + 1, rows, cols, 1, rows + 2, max_cols + 5, c_row_stride, !accumulate, !specials,
                         random);
      }
    for (unsigned k : {0u, 1u, 2u, 3u, 5u, 8u, 17u, 31u, 64u, 127u, 128u, 129u, 200u})
      for (unsigned rows : {1u, max_rows / 2, max_rows - 1, max_rows})
        for (unsigned cols : {1u, 15u, 16u, 17u, max_cols - 1, max_cols})
          for (bool accumulate : {false, true}) {
            if (cols > max_cols) continue;  // 17: past a 16-wide kernel's panel
            const bool specials = (k + rows) % 2 == 1;
            check_block_call(*kernel, k, rows, cols, k + 3, 1, 128, max_cols, accumulate, specials, random);  // rows, a tile
            check_block_call(*kernel, k, rows, cols, 1, 3 * rows + 1, cols, 2 * max_cols + 1, accumulate, specials, random);
            check_block_call(*kernel, k, rows, cols, 2 * k + 1, 2, max_cols, max_cols, accumulate, specials, random);
          }
  }
}

TEST_CASE("every bfloat16 block kernel equals the naive fma loop on the widened values", "[mxu]") {
  std::mt19937 random(1316);
  for (const rt::FloatKernel* kernel : rt::float_kernels_for_this_cpu()) {
    if (kernel->run_block_bf16 == nullptr) continue;
    const unsigned max_rows = kernel->rows, max_cols = kernel->columns;
    for (unsigned rows = 1; rows <= max_rows; ++rows)
      for (unsigned cols = 1; cols <= max_cols; ++cols) {
        const unsigned k = (rows * 5 + cols * 3) % 37;  // K = 0 .. 36 spread over the shapes
        check_block_bf16_call(*kernel, k, rows, cols, k, cols + rows % 3, max_cols + cols % 4, (rows + cols) % 2 == 0,
                              cols % 3 == 0, random);
      }
    for (unsigned k : {0u, 1u, 2u, 3u, 16u, 17u, 127u, 128u, 129u})
      for (unsigned rows : {1u, max_rows - 1, max_rows})
        for (unsigned cols : {1u, 16u, 17u, max_cols})
          for (bool accumulate : {false, true}) {
            const bool specials = (k + rows + cols) % 2 == 1;
            check_block_bf16_call(*kernel, k, rows, cols, k, 128, max_cols, accumulate, specials, random);
            check_block_bf16_call(*kernel, k, rows, cols, k + 5, cols, 2 * max_cols + 1, accumulate, specials, random);
          }
  }
}

TEST_CASE("block kernels walk any number of rows and pack (and widen) the weights they read when asked", "[mxu]") {
  std::mt19937 random(1319);
  for (const rt::FloatKernel* kernel : rt::float_kernels_for_this_cpu()) {
    if (kernel->run_block == nullptr) continue;
    const unsigned block = kernel->rows, max_cols = kernel->columns;
    for (unsigned rows : {1u, block - 1, block, block + 1, 2 * block, 2 * block + 5, 5 * block + block / 2})
      for (unsigned cols : {1u, 16u, 17u, max_cols - 1, max_cols})
        for (unsigned k : {0u, 1u, 17u, 129u, 300u})
          for (bool pack : {false, true}) {
            if (cols > max_cols) continue;  // 17: past a 16-wide kernel's panel
            const bool accumulate = (rows + k) % 2 == 0, specials = (cols + k) % 3 == 0;
            const int64_t c_row_stride = max_cols + cols % 3;
            check_block_call(*kernel, k, rows, cols, k + 1, 1, 2 * max_cols + 3, c_row_stride, accumulate, specials,
                             random, pack);
            check_block_call(*kernel, k, rows, cols, 1, rows + 1, cols, c_row_stride, !accumulate, specials, random,
                             pack);
            if (kernel->run_block_bf16 != nullptr)
              check_block_bf16_call(*kernel, k, rows, cols, k + 2, max_cols + 1, c_row_stride, accumulate, !specials,
                                    random, pack);
            if (pack && rows == 1) {  // no rows at all: the weights are only packed
              const std::vector<float> w = random_floats(size_t{k} * max_cols + 1, specials, random);
              PackedPanel packed(true, *kernel, k);
              kernel->run_block(nullptr, 0, 1, {w.data(), max_cols}, k, 0, cols, nullptr, 0, accumulate, packed.data());
              packed.check(*kernel, w, k, cols, max_cols);
            }
            if (pack)  // bfloat16 weights are widened into the panel as they are packed
              for (bool bf16_activations : {false, true})
                if (!bf16_activations || kernel->run_block_bf16 != nullptr)
                  check_bf16_weights_call(*kernel, k, rows, cols, cols + rows % 5, c_row_stride, !accumulate,
                                          specials, bf16_activations, random);
          }
  }
}

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

TEST_CASE("every float kernel through matmul with weights packed and in place", "[mxu]") {
  // Wide weight rows and many activation rows: the unit packs the tiles. Few rows, or narrow weight
  // rows: block kernels read the tiles in place. Both with ragged row blocks, panels and tiles.
  std::mt19937 random(1317);
  for (const rt::FloatKernel* kernel : rt::float_kernels_for_this_cpu()) {
    auto mxu = std::make_unique<rt::Mxu>(128, *kernel);
    for (rt::DType dtype : {rt::DType::kF32, rt::DType::kBF16})
      for (const auto& [m, k, n] : {std::array<int64_t, 3>{37, 259, 300}, std::array<int64_t, 3>{61, 130, 290},
                                    std::array<int64_t, 3>{16, 300, 270}, std::array<int64_t, 3>{17, 129, 257},
                                    std::array<int64_t, 3>{40, 200, 250}, std::array<int64_t, 3>{3, 5, 700}})
        check_edge_matmul(*mxu, dtype, m, k, n, false, false, random);
  }
}

TEST_CASE("every float kernel through load_weights and stream, overwriting and accumulating", "[mxu]") {
  std::mt19937 random(1318);
  for (const rt::FloatKernel* kernel : rt::float_kernels_for_this_cpu()) {
    auto mxu = std::make_unique<rt::Mxu>(128, *kernel);
    for (rt::DType dtype : {rt::DType::kF32, rt::DType::kBF16})
      for (const auto& [m, k, n] : {std::array<int64_t, 3>{29, 128, 128}, std::array<int64_t, 3>{12, 77, 45},
                                    std::array<int64_t, 3>{1, 1, 1}, std::array<int64_t, 3>{50, 3, 33}})
        for (bool accumulate : {false, true}) {
          INFO("kernel " << kernel->name << " " << rt::dtype_name(dtype) << " M " << m << " K " << k << " N " << n
                         << (accumulate ? " accumulate" : " overwrite"));
          Operand a = random_operand(dtype, m, k, false, random);
          Operand w = random_operand(dtype, k, n, false, random);
          std::vector<float> c(static_cast<size_t>(m * n) + 1);
          for (float& x : c) x = random_value(random, false);
          const std::vector<float> start = c;
          const int64_t dims[] = {m, n};
          const rt::Tensor accumulators =
              rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), c.data());
          REQUIRE(mxu->load_weights(w.view()).is_ok());
          REQUIRE(mxu->stream(a.view(), accumulators, accumulate ? rt::MxuMode::kAccumulate : rt::MxuMode::kOverwrite)
                      .is_ok());
          for (int64_t row = 0; row < m; ++row)
            for (int64_t col = 0; col < n; ++col) {
              float acc = accumulate ? start[row * n + col] : 0.0f;
              for (int64_t i = 0; i < k; ++i) acc = std::fma(a.at(row, i), w.at(i, col), acc);
              INFO("C[" << row << "][" << col << "]");
              REQUIRE(bits(c[row * n + col]) == bits(acc));
            }
          REQUIRE(bits(c[m * n]) == bits(start[m * n]));  // nothing written past the end
        }
  }
}

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
