// The MXU's int8 micro-kernels (runtime/mxu/int_kernel.hpp), each one this CPU runs, bit for bit
// against an int64 reference reduced mod 2^32 and against the portable kernel:
//  - on the kernels directly, with operands packed here from the layout's documentation (int16
//    pairs; or int8 activation rows, int8 weights in groups of four and the -128 x column-sum
//    corrections), so a packing bug in the MXU cannot hide a kernel bug: every K from 1 to 40
//    (K not a multiple of 2 or 4), long K, overwrite and accumulate, a wide accumulator stride,
//    and (kBiasedBytes) calls for fewer rows than the kernel's, which touch no other row;
//  - the kernels' own panel packing (kBiasedBytes) against the layout, byte for byte, including
//    partial panels (columns not a multiple of 16 or of the panel) and K padding;
//  - through the public API (rt::matmul, Mxu::load_weights / stream): random shapes, M, N, K not
//    multiples of the kernel's rows, columns or k group, K = 1, N = 1, M = 1, strided operands
//    (the element-by-element packing paths), accumulate mode onto existing values, and the
//    extremes: -128 and 127 everywhere, so the bias correction is at its largest, and K long
//    enough (> 2^31 / 2^14) that the int32 sums wrap.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "runtime/mxu/mxu.hpp"

namespace {

enum class Fill { kRandom, kExtremes, kMinimum, kMaximum };

std::vector<int8_t> int8_values(size_t count, std::mt19937& random, Fill fill) {
  std::vector<int8_t> values(count);
  for (int8_t& v : values) {
    switch (fill) {
      case Fill::kRandom: v = static_cast<int8_t>(random()); break;
      case Fill::kExtremes: v = static_cast<int8_t>(random() % 2 ? 127 : -128); break;
      case Fill::kMinimum: v = -128; break;
      case Fill::kMaximum: v = 127; break;
    }
  }
  return values;
}

// c[r][j] = start[r][j] + sum_k a[r][k] * w[k][j], in int64 and then mod 2^32.
std::vector<uint32_t> reference(const std::vector<int8_t>& a, const std::vector<int8_t>& w, unsigned rows, unsigned k,
                                unsigned columns, const std::vector<uint32_t>* start) {
  std::vector<uint32_t> c(size_t(rows) * columns);
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned j = 0; j < columns; ++j) {
      int64_t sum = 0;
      for (unsigned i = 0; i < k; ++i) sum += int64_t{a[size_t(r) * k + i]} * w[size_t(i) * columns + j];
      c[size_t(r) * columns + j] = static_cast<uint32_t>(sum) + (start ? (*start)[size_t(r) * columns + j] : 0u);
    }
  return c;
}

unsigned padded(unsigned k, unsigned group) { return (k + group - 1) / group * group; }

// The kBiasedBytes weight panel and its corrections, written from int_kernel.hpp's description.
void pack_biased_reference(const int8_t* w, int64_t row_stride, unsigned k, unsigned valid, unsigned columns,
                           std::vector<int8_t>& panel, std::vector<int32_t>& correction) {
  const unsigned k_steps = padded(k, 4);
  panel.assign(size_t(k_steps) * columns, 0);
  correction.assign(columns, 0);
  for (unsigned j = 0; j < columns; ++j) {
    int64_t sum = 0;
    for (unsigned i = 0; i < k_steps; ++i) {
      const int8_t value = i < k && j < valid ? w[i * row_stride + j] : 0;
      panel[((i / 4) * columns + j) * 4 + i % 4] = value;
      sum += value;
    }
    correction[j] = static_cast<int32_t>(static_cast<uint32_t>(-128 * sum));
  }
}

// Runs `kernel` once on a (rows x k) and w (k x columns), packed here in its layout, into a c
// with row stride `c_stride` (>= columns; the slots in between must survive).
std::vector<uint32_t> run_kernel(const rt::IntKernel& kernel, const std::vector<int8_t>& a,
                                 const std::vector<int8_t>& w, unsigned k, const std::vector<uint32_t>* start,
                                 unsigned c_stride) {
  const unsigned rows = kernel.rows, columns = kernel.columns;
  const unsigned k_steps = padded(k, kernel.k_group);
  std::vector<uint32_t> c(size_t(rows) * c_stride, 0x5a5a5a5au);
  if (start)
    for (unsigned r = 0; r < rows; ++r)
      for (unsigned j = 0; j < columns; ++j) c[size_t(r) * c_stride + j] = (*start)[size_t(r) * columns + j];
  int32_t* c_data = reinterpret_cast<int32_t*>(c.data());
  if (kernel.layout == rt::IntLayout::kBiasedBytes) {
    // Rows of k_steps bytes, int8; the padding slots hold junk, which the zero weights there cancel.
    std::vector<int8_t> a8(size_t(rows) * k_steps);
    for (unsigned r = 0; r < rows; ++r)
      for (unsigned i = 0; i < k_steps; ++i) a8[size_t(r) * k_steps + i] = i < k ? a[size_t(r) * k + i] : int8_t(0x5a + i);
    std::vector<int8_t> panel;
    std::vector<int32_t> correction;
    pack_biased_reference(w.data(), columns, k, columns, columns, panel, correction);
    kernel.run_biased(a8.data(), k_steps, panel.data(), correction.data(), k_steps, rows, c_data, c_stride, start != nullptr);
  } else {
    const unsigned group = kernel.k_group;
    std::vector<int16_t> a16(size_t(rows) * k_steps, 0), w16(size_t(columns) * k_steps, 0);
    for (unsigned i = 0; i < k; ++i) {
      for (unsigned r = 0; r < rows; ++r) a16[((i / group) * rows + r) * group + i % group] = a[size_t(r) * k + i];
      for (unsigned j = 0; j < columns; ++j) w16[((i / group) * columns + j) * group + i % group] = w[size_t(i) * columns + j];
    }
    kernel.run(a16.data(), w16.data(), k_steps, c_data, c_stride, start != nullptr);
  }
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned j = columns; j < c_stride; ++j) REQUIRE(c[size_t(r) * c_stride + j] == 0x5a5a5a5au);
  std::vector<uint32_t> packed(size_t(rows) * columns);
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned j = 0; j < columns; ++j) packed[size_t(r) * columns + j] = c[size_t(r) * c_stride + j];
  return packed;
}

void check_kernel(const rt::IntKernel& kernel, unsigned k, bool accumulate, Fill fill, std::mt19937& random) {
  INFO("kernel " << kernel.name << " K " << k << (accumulate ? " accumulate" : " overwrite") << " fill "
                 << static_cast<int>(fill));
  const unsigned rows = kernel.rows, columns = kernel.columns;
  const std::vector<int8_t> a = int8_values(size_t(rows) * k, random, fill);
  const std::vector<int8_t> w = int8_values(size_t(k) * columns, random, fill);
  std::vector<uint32_t> start(size_t(rows) * columns);
  for (uint32_t& s : start) s = static_cast<uint32_t>(random());
  const std::vector<uint32_t>* initial = accumulate ? &start : nullptr;
  const std::vector<uint32_t> want = reference(a, w, rows, k, columns, initial);
  const std::vector<uint32_t> got = run_kernel(kernel, a, w, k, initial, columns + 7);
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("row " << i / columns << " column " << i % columns);
    REQUIRE(got[i] == want[i]);
  }
  // The portable kernel, rows and columns at a time, gives the same bits.
  const rt::IntKernel& portable = rt::kPortableIntKernel;
  for (unsigned r0 = 0; r0 + portable.rows <= rows; r0 += portable.rows)
    for (unsigned j0 = 0; j0 + portable.columns <= columns; j0 += portable.columns) {
      std::vector<int8_t> a_part(size_t(portable.rows) * k), w_part(size_t(k) * portable.columns);
      std::vector<uint32_t> start_part(size_t(portable.rows) * portable.columns);
      for (unsigned r = 0; r < portable.rows; ++r) {
        for (unsigned i = 0; i < k; ++i) a_part[size_t(r) * k + i] = a[size_t(r0 + r) * k + i];
        for (unsigned j = 0; j < portable.columns; ++j)
          start_part[size_t(r) * portable.columns + j] = start[size_t(r0 + r) * columns + j0 + j];
      }
      for (unsigned i = 0; i < k; ++i)
        for (unsigned j = 0; j < portable.columns; ++j) w_part[size_t(i) * portable.columns + j] = w[size_t(i) * columns + j0 + j];
      const std::vector<uint32_t> part =
          run_kernel(portable, a_part, w_part, k, accumulate ? &start_part : nullptr, portable.columns);
      for (unsigned r = 0; r < portable.rows; ++r)
        for (unsigned j = 0; j < portable.columns; ++j)
          REQUIRE(got[size_t(r0 + r) * columns + j0 + j] == part[size_t(r) * portable.columns + j]);
    }
}

struct Matrix {
  std::vector<int8_t> values;  // row-major, rows x cols
  int64_t rows, cols;
};

// A [rows, cols] int8 tensor over `storage`: row-major, or (transposed) stored column-major and
// viewed with strides {1, rows}, the layout the MXU packs element by element.
rt::Tensor view(const Matrix& m, std::vector<int8_t>& storage, bool transposed) {
  storage.assign(m.values.size() + 1, 0);
  rt::Tensor t;
  t.dtype = rt::DType::kI8;
  const int64_t dims[] = {m.rows, m.cols};
  t.shape = *rt::Shape::make(rt::Span<const int64_t>(dims, 2));
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t c = 0; c < m.cols; ++c)
      storage[size_t(transposed ? c * m.rows + r : r * m.cols + c)] = m.values[size_t(r * m.cols + c)];
  t.strides[0] = transposed ? 1 : m.cols;
  t.strides[1] = transposed ? m.rows : 1;
  t.data = reinterpret_cast<uint8_t*>(storage.data());
  return t;
}

rt::Tensor int32_view(std::vector<uint32_t>& storage, int64_t rows, int64_t cols, int64_t row_stride,
                      int64_t column_stride) {
  rt::Tensor t;
  t.dtype = rt::DType::kI32;
  const int64_t dims[] = {rows, cols};
  t.shape = *rt::Shape::make(rt::Span<const int64_t>(dims, 2));
  t.strides[0] = row_stride;
  t.strides[1] = column_stride;
  t.data = reinterpret_cast<uint8_t*>(storage.data());
  return t;
}

struct MatmulCase {
  int64_t m, k, n;
  Fill fill = Fill::kRandom;
  bool transposed_a = false, transposed_b = false, strided_c = false;
};

// C = A x B through rt::matmul on an Mxu with `kernel`; against the int64 reference and against
// the same product on an Mxu with the portable kernel.
void check_matmul(const rt::IntKernel& kernel, unsigned tile, const MatmulCase& test, std::mt19937& random) {
  INFO("kernel " << kernel.name << " tile " << tile << " M " << test.m << " K " << test.k << " N " << test.n << " fill "
                 << static_cast<int>(test.fill) << (test.transposed_a ? " A^T" : "") << (test.transposed_b ? " B^T" : "")
                 << (test.strided_c ? " strided C" : ""));
  const Matrix a{int8_values(size_t(test.m * test.k), random, test.fill), test.m, test.k};
  const Matrix b{int8_values(size_t(test.k * test.n), random, test.fill), test.k, test.n};
  std::vector<int8_t> a_storage, b_storage;
  const rt::Tensor a_view = view(a, a_storage, test.transposed_a), b_view = view(b, b_storage, test.transposed_b);
  // A strided C: every other column of a wider buffer (the edge path), guarded by a sentinel.
  const int64_t column_stride = test.strided_c ? 2 : 1;
  const auto run = [&](const rt::IntKernel& unit_kernel) {
    std::vector<uint32_t> c(size_t(test.m * test.n * column_stride) + 1, 0xdeadbeefu);
    auto mxu = std::make_unique<rt::Mxu>(tile, rt::kPortableFloatKernel, unit_kernel);
    REQUIRE(rt::matmul(*mxu, a_view, b_view, int32_view(c, test.m, test.n, test.n * column_stride, column_stride)).is_ok());
    REQUIRE(c.back() == 0xdeadbeefu);
    std::vector<uint32_t> dense(size_t(test.m * test.n));
    for (size_t i = 0; i < dense.size(); ++i) {
      dense[i] = c[i * column_stride];
      if (column_stride == 2) REQUIRE(c[i * 2 + 1] == 0xdeadbeefu);
    }
    return dense;
  };
  const std::vector<uint32_t> got = run(kernel);
  const std::vector<uint32_t> portable = run(rt::kPortableIntKernel);
  const std::vector<uint32_t> want = reference(a.values, b.values, unsigned(test.m), unsigned(test.k), unsigned(test.n), nullptr);
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    REQUIRE(got[i] == want[i]);
    REQUIRE(portable[i] == want[i]);
  }
}

}  // namespace

TEST_CASE("every int8 kernel equals the reference on packed operands, K 1 to 40 and long K", "[mxu]") {
  std::mt19937 random(1301);
  for (const rt::IntKernel* kernel : rt::int_kernels_for_this_cpu()) {
    REQUIRE(kernel->rows <= rt::kMaxIntKernelRows);
    REQUIRE(kernel->columns <= (kernel->layout == rt::IntLayout::kBiasedBytes ? rt::kMaxIntKernelColumns
                                                                                : rt::kMaxInt16KernelColumns));
    if (kernel->layout == rt::IntLayout::kBiasedBytes) {
      REQUIRE(kernel->k_group == 4);
      REQUIRE(kernel->run_biased != nullptr);
    } else {
      REQUIRE(kernel->run != nullptr);
    }
    for (unsigned k = 1; k <= 40; ++k)
      for (bool accumulate : {false, true}) check_kernel(*kernel, k, accumulate, k % 5 == 0 ? Fill::kExtremes : Fill::kRandom, random);
    for (Fill fill : {Fill::kMinimum, Fill::kMaximum, Fill::kExtremes}) check_kernel(*kernel, 128, true, fill, random);
    check_kernel(*kernel, 1001, false, Fill::kRandom, random);
  }
}

TEST_CASE("biased-bytes kernels touch only the rows they are given", "[mxu]") {
  // A call for fewer rows than the kernel's (the last block of a matmul) reads and writes only
  // those: rows past them in a and c are guarded by junk that must not show up or change.
  std::mt19937 random(1307);
  for (const rt::IntKernel* kernel : rt::int_kernels_for_this_cpu()) {
    if (kernel->layout != rt::IntLayout::kBiasedBytes) continue;
    const unsigned columns = kernel->columns, k = 24, c_stride = columns + 3;
    for (unsigned rows = 1; rows <= kernel->rows; ++rows)
      for (bool accumulate : {false, true}) {
        INFO("kernel " << kernel->name << " rows " << rows << (accumulate ? " accumulate" : " overwrite"));
        const std::vector<int8_t> a = int8_values(size_t(kernel->rows) * k, random, Fill::kRandom);
        const std::vector<int8_t> w = int8_values(size_t(k) * columns, random, Fill::kExtremes);
        std::vector<int8_t> panel;
        std::vector<int32_t> correction;
        pack_biased_reference(w.data(), columns, k, columns, columns, panel, correction);
        std::vector<uint32_t> start(size_t(rows) * columns);
        for (uint32_t& x : start) x = static_cast<uint32_t>(random());
        std::vector<uint32_t> c(size_t(kernel->rows) * c_stride, 0x77777777u);
        for (unsigned r = 0; r < rows; ++r)
          for (unsigned j = 0; j < columns; ++j) c[size_t(r) * c_stride + j] = start[size_t(r) * columns + j];
        std::vector<int8_t> a_rows(a.begin(), a.begin() + rows * k);  // exactly `rows` rows
        kernel->run_biased(a_rows.data(), k, panel.data(), correction.data(), k, rows,
                           reinterpret_cast<int32_t*>(c.data()), c_stride, accumulate);
        const std::vector<uint32_t> want = reference(a_rows, w, rows, k, columns, accumulate ? &start : nullptr);
        for (unsigned r = 0; r < kernel->rows; ++r)
          for (unsigned j = 0; j < c_stride; ++j) {
            INFO("row " << r << " column " << j);
            REQUIRE(c[size_t(r) * c_stride + j] == (r < rows && j < columns ? want[size_t(r) * columns + j] : 0x77777777u));
          }
      }
  }
}

TEST_CASE("int8 kernels wrap mod 2^32 over a long K", "[mxu]") {
  // (-128) x (-128) = 2^14 per step: 140001 steps sum to 2293776384 > 2^31 - 1; the bias
  // correction -128 x (-128 x K) wraps as well. 127 x -128 the other way.
  std::mt19937 random(1302);
  for (const rt::IntKernel* kernel : rt::int_kernels_for_this_cpu()) {
    check_kernel(*kernel, 140001, false, Fill::kMinimum, random);
    check_kernel(*kernel, 140001, true, Fill::kExtremes, random);
  }
}

TEST_CASE("biased-bytes kernels pack weight panels exactly as the layout says", "[mxu]") {
  std::mt19937 random(1303);
  for (const rt::IntKernel* kernel : rt::int_kernels_for_this_cpu()) {
    if (kernel->layout != rt::IntLayout::kBiasedBytes || kernel->pack_biased_panel == nullptr) continue;
    const unsigned columns = kernel->columns;
    for (unsigned k : {1u, 2u, 3u, 4u, 5u, 7u, 64u, 125u, 127u, 128u})
      for (unsigned valid : {1u, 3u, 15u, 16u, 17u, columns / 2 + 1, columns - 1, columns}) {
        for (Fill fill : {Fill::kRandom, Fill::kMinimum, Fill::kMaximum}) {
          INFO("kernel " << kernel->name << " K " << k << " valid columns " << valid << " fill " << static_cast<int>(fill));
          const int64_t row_stride = valid + random() % 40;
          // Exactly the rows' bytes, in a buffer of their own: reading past the last row's last valid
          // column would be out of bounds (AddressSanitizer builds catch it).
          std::vector<int8_t> w = int8_values(size_t((k - 1) * row_stride + valid), random, fill);
          std::vector<int8_t> want_panel, got_panel(size_t(padded(k, 4)) * columns, 0x33);
          std::vector<int32_t> want_correction, got_correction(columns, 0x33333333);
          pack_biased_reference(w.data(), row_stride, k, valid, columns, want_panel, want_correction);
          kernel->pack_biased_panel(w.data(), row_stride, k, valid, got_panel.data(), got_correction.data());
          REQUIRE(got_panel == want_panel);
          REQUIRE(got_correction == want_correction);
        }
      }
  }
}

TEST_CASE("every int8 kernel gives the portable kernel's bits through matmul", "[mxu]") {
  std::mt19937 random(1304);
  for (const rt::IntKernel* kernel : rt::int_kernels_for_this_cpu()) {
    const int64_t rows = kernel->rows, columns = kernel->columns;
    for (unsigned tile : {5u, 33u, 64u, 128u}) {
      for (int round = 0; round < 8; ++round) {
        MatmulCase test{1 + int64_t(random() % 40), 1 + int64_t(random() % 300), 1 + int64_t(random() % 200)};
        test.transposed_a = round % 4 == 1;
        test.transposed_b = round % 4 == 2;
        test.strided_c = round % 4 == 3;
        test.fill = round == 7 ? Fill::kExtremes : Fill::kRandom;
        check_matmul(*kernel, tile, test, random);
      }
      // Edges: one row, one column, K = 1 and K just past a multiple of 4 and of the tile; whole
      // and partial blocks and panels.
      for (const MatmulCase& test :
           {MatmulCase{1, 1, 1}, MatmulCase{rows, 1, columns}, MatmulCase{rows + 1, 1, 1}, MatmulCase{1, 5, columns + 1},
            MatmulCase{2 * rows, tile, 2 * columns}, MatmulCase{2 * rows - 1, tile + 1, 2 * columns - 1},
            MatmulCase{3 * rows + 2, 2 * tile + 3, 1}, MatmulCase{rows, 4 * tile, tile, Fill::kMinimum},
            MatmulCase{rows + 3, 3 * tile + 2, tile + 5, Fill::kExtremes},
            MatmulCase{2 * rows, 2 * tile, 2 * columns, Fill::kMaximum, false, true},
            MatmulCase{2 * rows, tile + 2, 3 * columns, Fill::kExtremes, true, false, true}})
        check_matmul(*kernel, tile, test, random);
    }
  }
}

TEST_CASE("int8 matmul sums wrap mod 2^32 through the MXU", "[mxu]") {
  // 140001 x 2^14 > 2^31: every element wraps, tile after tile, in overwrite and accumulate mode.
  std::mt19937 random(1305);
  for (const rt::IntKernel* kernel : rt::int_kernels_for_this_cpu()) {
    check_matmul(*kernel, 128, MatmulCase{int64_t(kernel->rows) + 1, 140001, 3, Fill::kMinimum}, random);
    check_matmul(*kernel, 128, MatmulCase{2, 140001, int64_t(kernel->columns) + 1, Fill::kExtremes}, random);
  }
}

TEST_CASE("int8 stream in accumulate mode adds onto existing accumulators", "[mxu]") {
  std::mt19937 random(1306);
  for (const rt::IntKernel* kernel : rt::int_kernels_for_this_cpu()) {
    for (Fill fill : {Fill::kRandom, Fill::kMinimum, Fill::kMaximum}) {
      const int64_t m = 2 * kernel->rows + 1, k = 37, n = kernel->columns + 9;
      INFO("kernel " << kernel->name << " fill " << static_cast<int>(fill));
      const Matrix a{int8_values(size_t(m * k), random, fill), m, k};
      const Matrix w{int8_values(size_t(k * n), random, fill), k, n};
      std::vector<int8_t> a_storage, w_storage;
      std::vector<uint32_t> c(size_t(m * n));
      for (uint32_t& x : c) x = static_cast<uint32_t>(random());
      const std::vector<uint32_t> start = c;
      auto mxu = std::make_unique<rt::Mxu>(128, rt::kPortableFloatKernel, *kernel);
      REQUIRE(mxu->load_weights(view(w, w_storage, false)).is_ok());
      REQUIRE(mxu->stream(view(a, a_storage, false), int32_view(c, m, n, n, 1), rt::MxuMode::kAccumulate).is_ok());
      const std::vector<uint32_t> want = reference(a.values, w.values, unsigned(m), unsigned(k), unsigned(n), &start);
      REQUIRE(c == want);
      // Overwrite mode ignores what was there.
      REQUIRE(mxu->stream(view(a, a_storage, false), int32_view(c, m, n, n, 1), rt::MxuMode::kOverwrite).is_ok());
      REQUIRE(c == reference(a.values, w.values, unsigned(m), unsigned(k), unsigned(n), nullptr));
    }
  }
}

TEST_CASE("this CPU's int8 kernel list", "[mxu]") {
  const auto kernels = rt::int_kernels_for_this_cpu();
  REQUIRE(kernels.size() >= 1);
  CHECK(kernels[kernels.size() - 1] == &rt::kPortableIntKernel);  // the portable one is always last
#if defined(__x86_64__)
  // With VNNI the default (first) kernel uses it: vpdpbusd (AVX-512 VNNI, zmm) before AVX-VNNI (ymm).
  if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw"))
    CHECK(std::strcmp(kernels[0]->name, "avx512vnni-int-6x64") == 0);
  else if (__builtin_cpu_supports("avxvnni"))
    CHECK(std::strcmp(kernels[0]->name, "avxvnni-int-6x16") == 0);
#endif
}
