// The software MXU (runtime/mxu) against a naive triple loop written from the documented numerics:
// k ascending, one std::fma per step (one rounding), float32 accumulation for bfloat16, exact int32
// for int8. Bit-exact comparisons over random shapes (zero sizes, edge tiles, K not a
// multiple of the tile), three tile sizes, every float kernel the CPU runs, transposed (strided)
// operands, and int8 extremes. And NumPy as a second, independent reference on random .npy
// operands (exact for int8, within a float64-derived bound for float32 and bfloat16).
#include <catch2/catch.hpp>

#include "numpy_bridge.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <random>
#include <vector>

#include "runtime/dtype/half.hpp"
#include "runtime/mxu/mxu.hpp"
#include "runtime/tensor/npy.hpp"

namespace {

struct Matrix {
  rt::DType dtype;
  int64_t rows, cols;
  std::vector<uint8_t> bytes;
  rt::Tensor tensor() {
    const int64_t dims[] = {rows, cols};
    return rt::Tensor::contiguous(dtype, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), bytes.data());
  }
};

Matrix random_matrix(rt::DType dtype, int64_t rows, int64_t cols, std::mt19937& random, bool extremes = false) {
  Matrix m{dtype, rows, cols, std::vector<uint8_t>(static_cast<size_t>(rows * cols) * rt::dtype_size(dtype) + 1)};
  std::uniform_real_distribution<float> real(-4.0f, 4.0f);
  for (int64_t i = 0; i < rows * cols; ++i) {
    if (dtype == rt::DType::kI8) {
      const int8_t v = extremes ? static_cast<int8_t>(random() % 2 ? 127 : -128) : static_cast<int8_t>(random());
      std::memcpy(&m.bytes[i], &v, 1);
    } else if (dtype == rt::DType::kBF16) {
      const uint16_t v = rt::to_bfloat16(real(random)).bits;
      std::memcpy(&m.bytes[2 * i], &v, 2);
    } else {
      const float v = real(random) * static_cast<float>(1 << (random() % 12));
      std::memcpy(&m.bytes[4 * i], &v, 4);
    }
  }
  return m;
}

float as_float(const Matrix& m, int64_t r, int64_t c) {
  if (m.dtype == rt::DType::kBF16) {
    uint16_t bits;
    std::memcpy(&bits, &m.bytes[2 * (r * m.cols + c)], 2);
    return rt::to_float(rt::BFloat16{bits});
  }
  float v;
  std::memcpy(&v, &m.bytes[4 * (r * m.cols + c)], 4);
  return v;
}

// The reference: C = A x B with k ascending, one fused multiply-add per step.
std::vector<uint32_t> naive_matmul(const Matrix& a, const Matrix& b) {
  std::vector<uint32_t> out(static_cast<size_t>(a.rows * b.cols));
  for (int64_t m = 0; m < a.rows; ++m)
    for (int64_t n = 0; n < b.cols; ++n) {
      if (a.dtype == rt::DType::kI8) {
        int64_t acc = 0;
        for (int64_t k = 0; k < a.cols; ++k)
          acc += int64_t{static_cast<int8_t>(a.bytes[m * a.cols + k])} * static_cast<int8_t>(b.bytes[k * b.cols + n]);
        out[m * b.cols + n] = static_cast<uint32_t>(acc);
      } else {
        float acc = 0.0f;
        for (int64_t k = 0; k < a.cols; ++k) acc = std::fma(as_float(a, m, k), as_float(b, k, n), acc);
        std::memcpy(&out[m * b.cols + n], &acc, 4);
      }
    }
  return out;
}

void check_matmul(rt::Mxu& mxu, rt::DType dtype, int64_t m, int64_t k, int64_t n, std::mt19937& random,
                  bool transposed_b = false, bool extremes = false) {
  INFO("dtype " << rt::dtype_name(dtype) << " M " << m << " K " << k << " N " << n << " tile " << mxu.tile()
                << (transposed_b ? " transposed B" : ""));
  Matrix a = random_matrix(dtype, m, k, random, extremes);
  Matrix b = random_matrix(dtype, k, n, random, extremes);
  rt::Tensor b_view = b.tensor();
  Matrix b_stored = b;
  if (transposed_b) {  // store B^T and hand the MXU a transposed (strided) view of it
    b_stored = Matrix{dtype, n, k, std::vector<uint8_t>(b.bytes.size())};
    const size_t e = rt::dtype_size(dtype);
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < n; ++c) std::memcpy(&b_stored.bytes[(c * k + r) * e], &b.bytes[(r * n + c) * e], e);
    const unsigned swap[] = {1, 0};
    b_view = *b_stored.tensor().transpose(rt::Span<const unsigned>(swap, 2));
  }
  std::vector<uint32_t> c(static_cast<size_t>(m * n) + 1, 0xdeadbeef);
  const int64_t dims[] = {m, n};
  const rt::Tensor c_tensor = rt::Tensor::contiguous(dtype == rt::DType::kI8 ? rt::DType::kI32 : rt::DType::kF32,
                                                     *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), c.data());
  REQUIRE(rt::matmul(mxu, a.tensor(), b_view, c_tensor).is_ok());
  const std::vector<uint32_t> expected = naive_matmul(a, b);
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("element " << i);
    REQUIRE(c[i] == expected[i]);
  }
  REQUIRE(c[m * n] == 0xdeadbeef);  // nothing written past the end
}

}  // namespace

TEST_CASE("MXU matmul equals the naive loop bit for bit", "[mxu]") {
  std::mt19937 random(2024);
  for (unsigned tile : {4u, 16u, 128u}) {
    auto mxu = std::make_unique<rt::Mxu>(tile);
    for (rt::DType dtype : {rt::DType::kF32, rt::DType::kBF16, rt::DType::kI8}) {
      for (int round = 0; round < 12; ++round) {
        const int64_t m = random() % 40, k = random() % 300, n = random() % 150;
        check_matmul(*mxu, dtype, m, k, n, random, round % 3 == 0);
      }
      check_matmul(*mxu, dtype, 0, 5, 7, random);
      check_matmul(*mxu, dtype, 5, 0, 7, random);  // empty sum: zeros
      check_matmul(*mxu, dtype, 3, tile, tile, random);
      check_matmul(*mxu, dtype, 3, tile + 1, 2 * tile + 3, random);
    }
  }
}

TEST_CASE("every float kernel this CPU runs gives the naive loop's bits", "[mxu]") {
  std::mt19937 random(77);
  const auto kernels = rt::float_kernels_for_this_cpu();
  REQUIRE(kernels.size() >= 1);
  REQUIRE(kernels[kernels.size() - 1]->run == rt::kPortableFloatKernel.run);  // the portable one is always last
  for (const rt::FloatKernel* kernel : kernels) {
    INFO("kernel " << kernel->name);
    for (unsigned tile : {5u, 32u, 128u}) {
      auto mxu = std::make_unique<rt::Mxu>(tile, *kernel);
      for (rt::DType dtype : {rt::DType::kF32, rt::DType::kBF16}) {
        for (int round = 0; round < 6; ++round) {
          const int64_t m = random() % 30, k = random() % 200, n = random() % 140;
          check_matmul(*mxu, dtype, m, k, n, random, round % 2 == 0);
        }
        check_matmul(*mxu, dtype, 2 * kernel->rows, tile, 2 * kernel->columns, random);  // full blocks only
      }
    }
  }
}

// Many rows and K deeper than a tile: block kernels take deep panels (up to 1024 k rows per call
// for a 32-wide kernel, deeper K in equal slices: 1500 = 2 x 750, 1281 = 641 + 640), so K here
// spans one or several of them, with ragged row blocks and column panels.
TEST_CASE("matmul over several deep panels of k equals the naive loop", "[mxu]") {
  std::mt19937 random(641);
  for (const rt::FloatKernel* kernel : rt::float_kernels_for_this_cpu()) {
    INFO("kernel " << kernel->name);
    for (unsigned tile : {4u, 128u}) {
      auto mxu = std::make_unique<rt::Mxu>(tile, *kernel);
      for (rt::DType dtype : {rt::DType::kF32, rt::DType::kBF16}) {
        check_matmul(*mxu, dtype, 37, 1500, 45, random);
        check_matmul(*mxu, dtype, 24, 1281, 64, random, true);
        check_matmul(*mxu, dtype, 17, 641, 33, random);
      }
    }
  }
}

TEST_CASE("matmul leaves no weights loaded in the unit", "[mxu]") {
  auto mxu = std::make_unique<rt::Mxu>(8);
  std::vector<float> a(20 * 30, 1.0f), b(30 * 5, 2.0f), c(20 * 5);
  const auto tensor = [](float* data, int64_t rows, int64_t cols) {
    const int64_t dims[] = {rows, cols};
    return rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), data);
  };
  REQUIRE(mxu->load_weights(tensor(b.data(), 8, 5)).is_ok());
  REQUIRE(rt::matmul(*mxu, tensor(a.data(), 20, 30), tensor(b.data(), 30, 5), tensor(c.data(), 20, 5)).is_ok());
  CHECK(c[0] == 60.0f);
  CHECK(mxu->stream(tensor(a.data(), 20, 8), tensor(c.data(), 20, 5), rt::MxuMode::kOverwrite).code() ==
        rt::StatusCode::kFailedPrecondition);
}

TEST_CASE("every int8 kernel this CPU runs is exact", "[mxu]") {
  std::mt19937 random(78);
  const auto kernels = rt::int_kernels_for_this_cpu();
  REQUIRE(kernels.size() >= 1);
  REQUIRE(kernels[kernels.size() - 1]->run == rt::kPortableIntKernel.run);
  for (const rt::IntKernel* kernel : kernels) {
    INFO("kernel " << kernel->name);
    for (unsigned tile : {5u, 33u, 128u}) {  // odd tiles: K padded to the kernel's k group
      auto mxu = std::make_unique<rt::Mxu>(tile, rt::kPortableFloatKernel, *kernel);
      for (int round = 0; round < 6; ++round) {
        const int64_t m = random() % 30, k = random() % 200, n = random() % 140;
        check_matmul(*mxu, rt::DType::kI8, m, k, n, random, round % 2 == 0, round == 5);
      }
      check_matmul(*mxu, rt::DType::kI8, 2 * kernel->rows, tile, 2 * kernel->columns, random, false, true);
    }
  }
}

TEST_CASE("MXU int8 extremes accumulate exactly", "[mxu]") {
  std::mt19937 random(5);
  auto mxu = std::make_unique<rt::Mxu>(128);
  check_matmul(*mxu, rt::DType::kI8, 4, 1000, 9, random, false, true);  // |sum| up to 1000 * 16384
}

TEST_CASE("MXU rejects bad operands", "[mxu]") {
  auto mxu = std::make_unique<rt::Mxu>(8);
  float a[6] = {}, b[6] = {}, c[4] = {};
  const int64_t a_dims[] = {2, 3}, b_dims[] = {2, 3}, c_dims[] = {2, 2};
  const auto tensor = [](float* data, const int64_t* dims, rt::DType dtype = rt::DType::kF32) {
    return rt::Tensor::contiguous(dtype, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), data);
  };
  const rt::Status shapes = rt::matmul(*mxu, tensor(a, a_dims), tensor(b, b_dims), tensor(c, c_dims));
  CHECK(std::string(shapes.message().data(), shapes.message().size()) ==
        "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]");  // TF's eager text, by hand
  const int64_t b_fits[] = {3, 2}, c_wrong[] = {3, 2};
  const rt::Status output = rt::matmul(*mxu, tensor(a, a_dims), tensor(b, b_fits), tensor(c, c_wrong));
  CHECK(std::string(output.message().data(), output.message().size()) ==
        "matmul of [2, 3] x [3, 2] makes [2, 2], not the output's [3, 2]");
  const rt::Status dtypes = rt::matmul(*mxu, tensor(a, a_dims), tensor(b, b_dims, rt::DType::kBF16), tensor(c, c_dims));
  CHECK(std::string(dtypes.message().data(), dtypes.message().size()) ==
        "cannot compute MatMul as input #1(zero-based) was expected to be a float tensor but is a bfloat16 tensor");
  const int64_t big[] = {9, 2};
  float w[18] = {};
  CHECK(std::string(mxu->load_weights(tensor(w, big)).message().data()) == "MXU weight tile 9x2 exceeds the 8x8 unit");
  rt::Mxu fresh(8);
  CHECK(fresh.stream(tensor(a, a_dims), tensor(c, c_dims), rt::MxuMode::kOverwrite).code() ==
        rt::StatusCode::kFailedPrecondition);
}

namespace {

const char* kNumpyMatmul = R"PY(
import numpy as np, sys
rng = np.random.default_rng(3)
mode = sys.argv[1]
dtypes = ['float32', 'bfloat16', 'int8']
if mode == 'generate':
    for i in range(30):
        dtype = dtypes[i % 3]
        m, k, n = (int(rng.integers(0, 70)), int(rng.integers(0, 300)), int(rng.integers(0, 200)))
        for name, shape in (('a', (m, k)), ('b', (k, n))):
            if dtype == 'int8':
                x = rng.integers(-128, 128, size=shape).astype(np.int8)
            else:
                x = (rng.standard_normal(shape) * 4).astype(np.float32)
                if dtype == 'bfloat16':  # round to nearest even, stored as raw 16-bit words
                    u = x.view(np.uint32).astype(np.uint64)
                    x = ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16).view('V2')
            np.save(f'build/unit/mm/{i}_{name}.npy', x)
    print(30)
else:
    bad = []
    for i in range(30):
        a, b, got = (np.load(f'build/unit/mm/{i}_{x}.npy') for x in ('a', 'b', 'c'))
        if a.dtype.kind == 'V':
            a, b = ((x.view(np.uint16).astype(np.uint32) << 16).view(np.float32) for x in (a, b))
        if a.dtype == np.int8:
            want = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)
            ok = got.dtype == np.int32 and np.array_equal(got, want)
        else:
            want = a.astype(np.float64) @ b.astype(np.float64)
            bound = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
            ok = got.dtype == np.float32 and got.shape == want.shape and bool(np.all(np.abs(got - want) <= bound * a.shape[1] * 2.0**-23 + 1e-30))
        if not ok: bad.append(str(i))
    print('OK' if not bad else 'MISMATCH in cases ' + ', '.join(bad))
)PY";

std::string run_python(const std::string& mode) { return numpy_bridge::run_python("build/unit/mm", kNumpyMatmul, mode); }


}  // namespace

TEST_CASE("MXU matmul agrees with NumPy on random .npy operands", "[mxu]") {
  const int cases = std::stoi(run_python("generate"));
  auto mxu = std::make_unique<rt::Mxu>();
  for (int i = 0; i < cases; ++i) {
    INFO("numpy case " << i);
    const std::string prefix = "build/unit/mm/" + std::to_string(i) + "_";
    const numpy_bridge::LoadedNpy a = numpy_bridge::load_npy(prefix + "a.npy");
    const numpy_bridge::LoadedNpy b = numpy_bridge::load_npy(prefix + "b.npy");
    const rt::DType out_type = a.tensor.dtype == rt::DType::kI8 ? rt::DType::kI32 : rt::DType::kF32;
    const int64_t dims[] = {a.tensor.shape.dims[0], b.tensor.shape.dims[1]};
    const numpy_bridge::NpyOutput c = numpy_bridge::npy_output(out_type, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)));
    REQUIRE(rt::matmul(*mxu, a.tensor, b.tensor, c.tensor).is_ok());
    c.write(prefix + "c.npy");
  }
  CHECK(run_python("check") == "OK\n");
}

TEST_CASE("matmul NaN results are the canonical quiet NaN", "[mxu]") {
  // Row 0: inf * 0 (invalid); row 1: a negative NaN input; row 2: finite. x86 would give a negative
  // default NaN for the first and keep the payload of the second; the MXU's contract is 0x7fc00000.
  const float inf = std::numeric_limits<float>::infinity();
  uint32_t negative_nan_bits = 0xffc12345u;
  float negative_nan;
  std::memcpy(&negative_nan, &negative_nan_bits, 4);
  for (int64_t n : {1, 5, 9}) {  // below and above the 4-lane scan, and a tail
    std::vector<float> a = {inf, 1.0f, negative_nan, 1.0f, 2.0f, 3.0f};  // [3, 2]
    std::vector<float> b(static_cast<size_t>(2 * n), 0.0f);             // [2, n], zeros
    std::vector<float> c(static_cast<size_t>(3 * n), -1.0f);
    const int64_t a_dims[] = {3, 2}, b_dims[] = {2, n}, c_dims[] = {3, n};
    const auto make = [](std::vector<float>& data, const int64_t* dims) {
      return rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), data.data());
    };
    auto mxu = std::make_unique<rt::Mxu>();
    REQUIRE(rt::matmul(*mxu, make(a, a_dims), make(b, b_dims), make(c, c_dims)).is_ok());
    for (int64_t j = 0; j < n; ++j) {
      uint32_t bits[3];
      for (int r = 0; r < 3; ++r) std::memcpy(&bits[r], &c[static_cast<size_t>(r * n + j)], 4);
      CHECK(bits[0] == 0x7fc00000u);
      CHECK(bits[1] == 0x7fc00000u);
      CHECK(bits[2] == 0u);  // 2 * 0 + 3 * 0 = +0
    }
  }
}

// Deep panels with everything strided: A a transposed view (k stride M), C rows padded, K at and
// just past a slice edge (1024, 1025 = 513 + 512, 2048 = 2 x 1024), and NaNs made in one slice
// (inf x 0 in the second half of k; a negative NaN input in the first), in each kind of block the
// kernel runs (40 rows: the block that packs the panel, rows 0-11; plain 12-row blocks; the last
// 4 rows): the naive fma loop's bits, NaNs canonical, and nothing written in C's padding.
TEST_CASE("matmul on deep panels with strided A and C and K at slice edges and NaNs", "[mxu]") {
  std::mt19937 random(1025);
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  const int64_t m = 40, n = 40, c_stride = n + 3;
  const int64_t nan_rows[] = {3, 7, 17, 26, 38};  // inf x 0 in rows 3, 17, 38; a NaN input in 7 and 26
  uint32_t negative_nan_bits = 0xffc12345u;
  float negative_nan;
  std::memcpy(&negative_nan, &negative_nan_bits, 4);
  for (int64_t k : {1024, 1025, 2048}) {
    INFO("K " << k);
    std::vector<float> a_t(static_cast<size_t>(k * m)), b(static_cast<size_t>(k * n));  // A stored as A^T [K, M]
    for (float& x : a_t) x = real(random);
    for (float& x : b) x = real(random);
    const auto a_at = [&](int64_t row, int64_t col) -> float& { return a_t[static_cast<size_t>(col * m + row)]; };
    for (int64_t row : {3, 17, 38}) a_at(row, k - 2) = std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < n; ++j) b[static_cast<size_t>((k - 2) * n + j)] = 0.0f;  // inf x 0 in the last slice
    a_at(7, 5) = negative_nan;
    a_at(26, 600) = negative_nan;
    std::vector<uint32_t> c(static_cast<size_t>(m * c_stride), 0xdeadbeefu);
    const int64_t at_dims[] = {k, m}, b_dims[] = {k, n}, c_dims[] = {m, c_stride};
    const unsigned swap[] = {1, 0};
    const rt::Tensor a_view = *rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(at_dims, 2)),
                                                      a_t.data())
                                   .transpose(rt::Span<const unsigned>(swap, 2));
    const rt::Tensor b_view =
        rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(b_dims, 2)), b.data());
    const rt::Tensor c_view =
        *rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(c_dims, 2)), c.data())
             .slice(1, 0, n);
    auto mxu = std::make_unique<rt::Mxu>();
    REQUIRE(rt::matmul(*mxu, a_view, b_view, c_view).is_ok());
    for (int64_t row = 0; row < m; ++row) {
      for (int64_t col = 0; col < n; ++col) {
        float acc = 0.0f;
        for (int64_t kk = 0; kk < k; ++kk) acc = std::fma(a_at(row, kk), b[static_cast<size_t>(kk * n + col)], acc);
        uint32_t want;
        std::memcpy(&want, &acc, 4);
        if (acc != acc) want = 0x7fc00000u;
        INFO("row " << row << " col " << col);
        REQUIRE(c[static_cast<size_t>(row * c_stride + col)] == want);
      }
      for (int64_t col = n; col < c_stride; ++col) REQUIRE(c[static_cast<size_t>(row * c_stride + col)] == 0xdeadbeefu);
    }
    for (int64_t row : nan_rows) {  // the reference made them NaN, so the test covers what it says
      INFO("NaN row " << row);
      CHECK(c[static_cast<size_t>(row * c_stride)] == 0x7fc00000u);
    }
  }
}
