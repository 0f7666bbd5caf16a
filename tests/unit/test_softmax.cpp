// softmax / log_softmax (runtime/ops/softmax.cpp) against NumPy: random logits (float32, bfloat16,
// float16; any axis; strided input and output views; -inf entries, rows of all -inf, logits near
// 1e4) checked two ways - bit for bit against NumPy replaying the documented float32 order
// (max, subtract, exp, sequential sum, divide / subtract log), and within a few float32 ulps of a
// float64 reference, with every softmax row summing to 1. Plus hand cases and TF's error texts.
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include "numpy_bridge.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/ops/float_math.hpp"
#include "runtime/ops/softmax.hpp"
#include "runtime/ops/softmax_cross_entropy.hpp"
#include "runtime/tensor/npy.hpp"

namespace {

using test_helpers::message;
using test_helpers::shape_of;
using test_helpers::reversed_shape;
using test_helpers::reversed_view;
using test_helpers::bits_of;

const char* kDirectory = "build/unit/softmax";

const char* kGenerate = R"PY(
import numpy as np, warnings
warnings.filterwarnings('ignore')
rng = np.random.default_rng(31)
d = 'build/unit/softmax'
def to_bf16(x):
    x = np.asarray(x, dtype=np.float32)
    u = x.reshape(-1).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x.reshape(-1)), ((u >> 16) | 0x40).astype(np.uint16), r).reshape(x.shape)
lines = []
for i in range(60):
    kind = ['softmax', 'log_softmax'][i % 2]
    dtype = ['float32', 'bfloat16', 'float16'][(i // 2) % 3]
    rank = int(rng.integers(1, 5))
    shape = [int(rng.integers(1, 7)) for _ in range(rank)]
    if i % 17 == 5: shape[0] = 0
    axis = int(rng.integers(-rank, rank)) if i % 4 >= 2 else -1
    scale = [1.0, 4.0, 30.0][i % 3]
    x = (rng.standard_normal(shape) * scale).astype(np.float32)
    if i % 5 == 0 and x.size: x += np.float32(1e4 if dtype != 'float16' else 6e4)   # large logits
    rows = np.moveaxis(x, axis, -1)   # a view: writes go to x
    if x.size and i % 3 == 1: rows[..., int(rng.integers(0, rows.shape[-1]))] = -np.inf
    if x.size and i % 6 == 4: rows[(0,) * (rows.ndim - 1)] = -np.inf   # one row of all -inf
    in_t, out_t = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    stored = x.T if in_t else x
    stored = to_bf16(stored).view('V2') if dtype == 'bfloat16' else stored.astype(dtype)
    np.save(f'{d}/{i}_in.npy', np.ascontiguousarray(stored))
    lines.append(f'{i} {kind} {dtype} {axis} {in_t} {out_t}')
open(f'{d}/cases.txt', 'w').write('\n'.join(lines) + '\n')
print(len(lines))
)PY";

const char* kCheck = R"PY(
import numpy as np, warnings
warnings.filterwarnings('ignore')
d = 'build/unit/softmax'
f32 = np.float32
def bf16_to_f32(u): return (u.astype(np.uint32) << 16).view(np.float32)
def to_bf16(x):
    x = np.asarray(x, dtype=np.float32)
    u = x.reshape(-1).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x.reshape(-1)), ((u >> 16) | 0x40).astype(np.uint16), r).reshape(x.shape)
def documented(kind, x):  # x: float32 rows on the last axis
    m = x[..., :1].copy()
    for i in range(1, x.shape[-1]):
        v = x[..., i:i + 1]; m = np.where((m > v) | np.isnan(m), m, v)
    shifted = x - m                                          # float32
    e = np.exp(shifted.astype(np.float64)).astype(f32)       # exp_f32 is correctly rounded
    s = e[..., :1].copy()
    for i in range(1, x.shape[-1]): s = s + e[..., i:i + 1]  # sequential float32
    if kind == 'softmax': return e / s
    return shifted - np.log(s.astype(np.float64)).astype(f32)
def wide(kind, x):  # float64 reference
    x = x.astype(np.float64)
    shifted = x - x.max(axis=-1, keepdims=True)
    s = np.exp(shifted).sum(axis=-1, keepdims=True)
    return np.exp(shifted) / s if kind == 'softmax' else shifted - np.log(s)
bad = []
for line in open(f'{d}/cases.txt'):
    i, kind, dtype, axis, in_t, out_t = line.split()
    axis = int(axis)
    stored, got = np.load(f'{d}/{i}_in.npy'), np.load(f'{d}/{i}_out.npy')
    x = stored.T if in_t == '1' else stored
    got = got.T if out_t == '1' else got
    if got.shape != x.shape: bad.append(f'case {i}: shape'); continue
    if dtype == 'bfloat16':
        xs, ys = bf16_to_f32(x.view(np.uint16)), bf16_to_f32(got.view(np.uint16))
    else:
        xs, ys = x.astype(np.float32), got.astype(np.float32)
    xs, ys = np.moveaxis(xs, axis, -1), np.moveaxis(ys, axis, -1)
    if xs.size == 0: continue
    n = xs.shape[-1]
    exact = documented(kind, xs)
    want = to_bf16(exact) if dtype == 'bfloat16' else exact.astype(dtype)
    got_bits = np.moveaxis(got.view(np.uint16) if dtype != 'float32' else got.view(np.uint32), axis, -1)
    want_bits = want.view(np.uint16) if dtype != 'float32' else want.view(np.uint32)
    got_nan, want_nan = np.isnan(ys), np.isnan(exact)
    canonical = {'float32': 0x7fc00000, 'bfloat16': 0x7fc0, 'float16': 0x7e00}[dtype]
    if not (np.array_equal(got_nan, want_nan) and np.array_equal(got_bits[~got_nan], want_bits[~want_nan])
            and np.all(got_bits[got_nan] == canonical)):
        bad.append(f'case {i} {kind} {dtype} {x.shape} axis {axis}: not the documented bits'); continue
    ref = wide(kind, xs)
    if not np.array_equal(np.isnan(ref), got_nan): bad.append(f'case {i}: NaN placement'); continue
    shifted = np.abs(xs.astype(np.float64) - xs.max(axis=-1, keepdims=True))
    out_rel = {'float32': 0.0, 'bfloat16': 2.0 ** -8, 'float16': 2.0 ** -10}[dtype]
    ok = ~np.isnan(ref) & np.isfinite(ref)
    if kind == 'softmax':
        # relative: exp, the rounding of x - max, the sum, the division, the output rounding; absolute:
        # the output type's subnormal spacing (tiny probabilities)
        subnormal = {'float32': 2.0 ** -149, 'bfloat16': 2.0 ** -133, 'float16': 2.0 ** -24}[dtype]
        tol = ref * ((3 + n + np.where(np.isfinite(shifted), shifted, 0)) * 2.0 ** -24 + out_rel) + subnormal
        row_ok = ~np.any(np.isnan(ref), axis=-1)
        sums = ys.astype(np.float64).sum(axis=-1)[row_ok]
        if not np.all(np.abs(sums - 1) <= n * (n + 3) * 2.0 ** -24 + n * out_rel):
            bad.append(f'case {i}: rows do not sum to 1: {sums}')
    else:
        tol = (3 + n) * 2.0 ** -24 * (np.abs(ref) + 1) + np.abs(ref) * out_rel
    if not np.all(np.abs(ys[ok] - ref[ok]) <= tol[ok]):
        err = np.max(np.abs(ys[ok] - ref[ok]) / np.maximum(tol[ok], 1e-300))
        bad.append(f'case {i} {kind} {dtype}: outside tolerance ({err:.2f}x)')
    if np.any(np.isinf(ref)) and not np.array_equal(ys[np.isinf(ref)], ref[np.isinf(ref)]):
        bad.append(f'case {i}: infinities')
print('OK' if not bad else 'MISMATCH ' + '; '.join(bad))
)PY";

std::string python(const std::string& script) { return numpy_bridge::run_python(kDirectory, script); }






const float kInf = std::numeric_limits<float>::infinity();

}  // namespace

TEST_CASE("softmax and log_softmax follow the documented order and match float64", "[softmax]") {
  REQUIRE(std::system("mkdir -p build/unit/softmax") == 0);
  const int cases = std::stoi(python(kGenerate));
  std::ifstream manifest(std::string(kDirectory) + "/cases.txt");
  std::string line;
  int seen = 0;
  while (std::getline(manifest, line)) {
    std::istringstream fields(line);
    int i = 0, axis = 0, in_transposed = 0, out_transposed = 0;
    std::string kind, dtype;
    fields >> i >> kind >> dtype >> axis >> in_transposed >> out_transposed;
    const std::string prefix = std::string(kDirectory) + "/" + std::to_string(i);
    const numpy_bridge::LoadedNpy in = numpy_bridge::load_npy(prefix + "_in.npy");
    const rt::Tensor input = in_transposed ? reversed_view(in.tensor) : in.tensor;
    const numpy_bridge::NpyOutput out =
        numpy_bridge::npy_output(input.dtype, out_transposed ? reversed_shape(input.shape) : input.shape);
    const rt::Tensor output = out_transposed ? reversed_view(out.tensor) : out.tensor;
    INFO("case " << line);
    const rt::Status status = kind == "softmax" ? rt::softmax(input, output, axis) : rt::log_softmax(input, output, axis);
    INFO(status.c_str());
    REQUIRE(status.is_ok());
    out.write(prefix + "_out.npy");
    ++seen;
  }
  REQUIRE(seen == cases);
  CHECK(python(kCheck) == "OK\n");
}

TEST_CASE("softmax hand cases: -inf, all -inf, large logits, in place", "[softmax]") {
  float logits[8] = {1.0f, 2.0f, 3.0f, -kInf, -kInf, -kInf, -kInf, -kInf};  // rows of 4
  float out[8];
  const rt::Tensor in = rt::Tensor::contiguous(rt::DType::kF32, shape_of({2, 4}), logits);
  const rt::Tensor result = rt::Tensor::contiguous(rt::DType::kF32, shape_of({2, 4}), out);
  REQUIRE(rt::softmax(in, result).is_ok());
  const double z = std::exp(-2.0) + std::exp(-1.0) + 1.0;
  CHECK(out[0] == Approx(std::exp(-2.0) / z).epsilon(1e-6));
  CHECK(out[2] == Approx(1.0 / z).epsilon(1e-6));
  CHECK(bits_of(out[3]) == 0u);  // exp(-inf) / sum = +0
  for (int i = 4; i < 8; ++i) CHECK(bits_of(out[i]) == rt::kCanonicalNanF32);  // all -inf: NaN as TF
  REQUIRE(rt::log_softmax(in, result).is_ok());
  CHECK(out[2] == Approx(-std::log(z)).epsilon(1e-6));
  CHECK(out[3] == -kInf);
  CHECK(std::isnan(out[4]));

  float large[3] = {1e4f, 1e4f - 1.0f, -1e4f};
  const rt::Tensor big = rt::Tensor::contiguous(rt::DType::kF32, shape_of({3}), large);
  REQUIRE(rt::softmax(big, big).is_ok());  // in place
  CHECK(large[0] == Approx(1.0 / (1.0 + std::exp(-1.0))).epsilon(1e-6));
  CHECK(large[1] == Approx(std::exp(-1.0) / (1.0 + std::exp(-1.0))).epsilon(1e-6));
  CHECK(large[2] == 0.0f);

  // Axis 0 of a [3, 2] matrix: columns are the rows.
  float columns[6] = {0, 5, 0, 5, 0, 5};
  float column_out[6];
  REQUIRE(rt::softmax(rt::Tensor::contiguous(rt::DType::kF32, shape_of({3, 2}), columns),
                      rt::Tensor::contiguous(rt::DType::kF32, shape_of({3, 2}), column_out), 0).is_ok());
  const float third = 1.0f / 3.0f;
  for (float value : column_out) CHECK(value == third);
}

TEST_CASE("softmax errors use TF's texts", "[softmax]") {
  float data[6] = {};
  const rt::Tensor m = rt::Tensor::contiguous(rt::DType::kF32, shape_of({2, 3}), data);
  const rt::Tensor t = rt::Tensor::contiguous(rt::DType::kF32, shape_of({3, 2}), data);
  CHECK(message(rt::softmax(m, m, 2)) ==
        "`dim` must be in the range [-2, 2) where 2 is the number of dimensions in the input. Received: dim=2");
  CHECK(message(rt::log_softmax(m, m, -3)) ==
        "`dim` must be in the range [-2, 2) where 2 is the number of dimensions in the input. Received: dim=-3");
  const rt::Tensor scalar = rt::Tensor::contiguous(rt::DType::kF32, shape_of({}), data);
  CHECK(message(rt::softmax(scalar, scalar)) == "logits must have >= 1 dimension, got []");
  CHECK(message(rt::softmax(m, t)) == "softmax: input shape [2, 3] and output shape [3, 2] differ");
  int32_t ints[6] = {};
  const rt::Tensor i = rt::Tensor::contiguous(rt::DType::kI32, shape_of({2, 3}), ints);
  CHECK(message(rt::softmax(i, i)) == "softmax does not support dtype int32 (supported: float32, bfloat16, float16)");
  double wide[6] = {};
  CHECK(message(rt::log_softmax(m, rt::Tensor::contiguous(rt::DType::kF64, shape_of({2, 3}), wide))) ==
        "log_softmax: input dtype float32 and output dtype float64 differ");
  CHECK(rt::softmax(m, m, -2).is_ok());
}

TEST_CASE("sparse_softmax_cross_entropy_with_logits: the same bits as log_softmax and softmax apart", "[softmax]") {
  std::vector<uint8_t> memory(1 << 16);
  rt::Arena arena(0, memory.data(), memory.size());
  const float values[] = {1.0f, 2.0f, 3.0f, -1.0f, 0.5f, 0.25f, 1e4f, -1e4f, 7.0f};
  const int32_t label_values[] = {2, 0, 1};
  rt::Tensor logits = *arena.allocate_tensor(rt::DType::kF32, test_helpers::shape_of({3, 3}), "logits");
  std::memcpy(logits.data, values, sizeof values);
  rt::Tensor labels = *arena.allocate_tensor(rt::DType::kI32, test_helpers::shape_of({3}), "labels");
  std::memcpy(labels.data, label_values, sizeof label_values);
  const rt::SoftmaxCrossEntropy xent = *rt::sparse_softmax_cross_entropy_with_logits(arena, labels, logits);
  rt::Tensor log_p = *arena.allocate_tensor(rt::DType::kF32, logits.shape, "log_p");
  rt::Tensor p = *arena.allocate_tensor(rt::DType::kF32, logits.shape, "p");
  REQUIRE(rt::log_softmax(logits, log_p).is_ok());
  REQUIRE(rt::softmax(logits, p).is_ok());
  for (int64_t i = 0; i < 3; ++i) {
    CHECK(xent.loss.at<float>(i) == -log_p.at<float>(i, label_values[i]));
    for (int64_t c = 0; c < 3; ++c)
      CHECK(xent.backprop.at<float>(i, c) == p.at<float>(i, c) - (c == label_values[i] ? 1.0f : 0.0f));
  }
  // Row 2 by hand: logit 1e4 dominates, the label (1) has probability 0: loss 2e4, backprop [1, -1, 0].
  CHECK(xent.loss.at<float>(2) == 2e4f);
  CHECK(xent.backprop.at<float>(2, 0) == 1.0f);
  CHECK(xent.backprop.at<float>(2, 1) == -1.0f);
}

TEST_CASE("sparse_softmax_cross_entropy_with_logits reads strided logits; a NaN in a row makes the row NaN", "[softmax]") {
  std::vector<uint8_t> memory(1 << 16);
  rt::Arena arena(0, memory.data(), memory.size());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float rows[3][3] = {{2.0f, -0.0f, 0.0f}, {1.0f, nan, 3.0f}, {-kInf, 5.0f, 4.0f}};
  const int32_t label_values[] = {1, 2, 0};
  rt::Tensor logits = *arena.allocate_tensor(rt::DType::kF32, test_helpers::shape_of({3, 3}), "logits");
  std::memcpy(logits.data, rows, sizeof rows);
  // The same logits as a transposed view: columns of a contiguous [3, 3] holding their transpose.
  rt::Tensor stored = *arena.allocate_tensor(rt::DType::kF32, test_helpers::shape_of({3, 3}), "transposed");
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) stored.at<float>(j, i) = rows[i][j];
  const unsigned swap[] = {1, 0};
  const rt::Tensor strided = *stored.transpose(rt::Span<const unsigned>(swap, 2));
  REQUIRE(strided.strides[1] == 3);
  rt::Tensor labels = *arena.allocate_tensor(rt::DType::kI32, test_helpers::shape_of({3}), "labels");
  std::memcpy(labels.data, label_values, sizeof label_values);
  const rt::SoftmaxCrossEntropy plain = *rt::sparse_softmax_cross_entropy_with_logits(arena, labels, logits);
  const rt::SoftmaxCrossEntropy viewed = *rt::sparse_softmax_cross_entropy_with_logits(arena, labels, strided);
  for (int64_t i = 0; i < 3; ++i) {
    CHECK(bits_of(viewed.loss.at<float>(i)) == bits_of(plain.loss.at<float>(i)));
    for (int64_t c = 0; c < 3; ++c) CHECK(bits_of(viewed.backprop.at<float>(i, c)) == bits_of(plain.backprop.at<float>(i, c)));
  }
  // Row 0 by hand against exp: softmax of [2, -0, 0], label 1.
  const double sum = std::exp(2.0) + 2.0;
  CHECK(plain.loss.at<float>(0) == Approx(std::log(sum)).epsilon(1e-6));
  CHECK(plain.backprop.at<float>(0, 1) == Approx(1.0 / sum - 1.0).epsilon(1e-6));
  // Row 1 holds a NaN: its loss and every backprop entry are NaN (the canonical one where not negated).
  CHECK(std::isnan(plain.loss.at<float>(1)));
  for (int64_t c = 0; c < 3; ++c) CHECK(bits_of(plain.backprop.at<float>(1, c)) == rt::kCanonicalNanF32);
  // Row 2: the label's logit is -inf: probability 0, loss +inf, backprop -1 there.
  CHECK(plain.loss.at<float>(2) == kInf);
  CHECK(plain.backprop.at<float>(2, 0) == -1.0f);
}

TEST_CASE("sparse_softmax_cross_entropy_with_logits refuses a label outside the classes with TF's text", "[softmax]") {
  std::vector<uint8_t> memory(1 << 16);
  rt::Arena arena(0, memory.data(), memory.size());
  rt::Tensor logits = *arena.allocate_tensor(rt::DType::kF32, test_helpers::shape_of({3, 10}), "logits");
  std::memset(logits.data, 0, 30 * sizeof(float));
  const int32_t label_values[] = {1, 10, 3};
  rt::Tensor labels = *arena.allocate_tensor(rt::DType::kI32, test_helpers::shape_of({3}), "labels");
  std::memcpy(labels.data, label_values, sizeof label_values);
  const auto refused = rt::sparse_softmax_cross_entropy_with_logits(arena, labels, logits);
  REQUIRE_FALSE(refused.is_ok());
  CHECK(test_helpers::message(refused.status()) ==
        "Received a label value of 10 which is outside the valid range of [0, 10).  Label values: 1 10 3");
}
