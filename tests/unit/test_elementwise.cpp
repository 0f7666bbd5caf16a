// Elementwise ops with broadcasting (runtime/ops/elementwise.cpp) against NumPy, bit for bit:
// NumPy writes random operands as .npy (all dtypes and ops, broadcast shapes, NaNs, integer
// division by zero and INT32_MIN / -1); the runtime computes and writes .npy results; NumPy checks
// each against its own reference (bfloat16 rounding and XLA's integer division written out in
// Python, independently of the C++ code).
#include <catch2/catch.hpp>

#include "numpy_bridge.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "runtime/ops/elementwise.hpp"
#include "runtime/tensor/npy.hpp"

namespace {

const char* kGenerate = R"PY(
import numpy as np, json, sys
rng = np.random.default_rng(11)
ops = ['add', 'sub', 'mul', 'div', 'max', 'min']
dtypes = ['float32', 'float64', 'bfloat16', 'float16', 'int32', 'uint32']
cases = []
for i in range(72):
    dtype, op = dtypes[i % 6], ops[(i // 6) % 6]
    rank = int(rng.integers(0, 5))
    a_shape = [int(rng.integers(1, 6)) for _ in range(rank)]
    b_shape = [d if rng.random() < 0.6 else 1 for d in a_shape][int(rng.integers(0, rank + 1)):]
    if rng.random() < 0.5: a_shape, b_shape = b_shape, a_shape
    def make(shape):
        if dtype in ('int32', 'uint32'):
            info = np.iinfo(dtype)
            x = rng.integers(info.min, info.max, size=shape, dtype=np.int64, endpoint=True).astype(dtype)
            flat = x.reshape(-1)
            if flat.size: flat[rng.integers(0, flat.size)] = 0
            if dtype == 'int32' and flat.size > 1: flat[0] = info.min; flat[-1] = -1
            return x
        x = (rng.standard_normal(shape) * 10.0 ** int(rng.integers(-3, 4))).astype(np.float32)
        flat = x.reshape(-1)
        if flat.size > 2 and rng.random() < 0.3: flat[1] = np.nan
        if flat.size > 3 and rng.random() < 0.3: flat[2] = np.inf * (1 if rng.random() < 0.5 else -1)  # inf - inf, 0 * inf: x86 makes a negative NaN
        if dtype == 'bfloat16':
            u = x.view(np.uint32); return ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)
        return x.astype(dtype)
    a, b = make(a_shape), make(b_shape)
    kind = '<V2' if dtype == 'bfloat16' else None
    for name, x in (('a', a), ('b', b)):
        np.save(f'build/unit/ew/{i}_{name}.npy', x.view('V2') if kind else x)
    cases.append({'i': i, 'op': op, 'dtype': dtype})
json.dump(cases, open('build/unit/ew/cases.json', 'w'))
print(len(cases))
)PY";

const char* kCheck = R"PY(
import numpy as np, json
cases = json.load(open('build/unit/ew/cases.json'))
bad = []
def bf16_to_f32(u): return (u.astype(np.uint32) << 16).view(np.float32)
def f32_to_bf16(x):
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), ((u >> 16) | 0x40).astype(np.uint16), r)
for c in cases:
    i, op, dtype = c['i'], c['op'], c['dtype']
    a, b = np.load(f'build/unit/ew/{i}_a.npy'), np.load(f'build/unit/ew/{i}_b.npy')
    got = np.load(f'build/unit/ew/{i}_out.npy')
    if got.shape != np.broadcast_shapes(a.shape, b.shape):
        bad.append(f'case {i}: result shape {got.shape}'); continue
    a, b, got = np.atleast_1d(a), np.atleast_1d(b), np.atleast_1d(got)  # bit views need rank >= 1
    with np.errstate(all='ignore'):
        if dtype in ('int32', 'uint32'):
            a64, b64 = a.astype(np.int64), b.astype(np.int64)
            if op == 'div':
                safe = np.where(b64 == 0, 1, b64)
                q = np.sign(a64) * np.sign(safe) * (np.abs(a64) // np.abs(safe))
                q = np.where(b64 == 0, -1, q)
            else:
                q = {'add': a64 + b64, 'sub': a64 - b64, 'mul': a64 * b64,
                     'max': np.maximum(a64, b64), 'min': np.minimum(a64, b64)}[op]
            want = (q & 0xffffffff).astype(np.uint32).view(dtype)
        else:
            x = bf16_to_f32(a.view(np.uint16)) if dtype == 'bfloat16' else a
            y = bf16_to_f32(b.view(np.uint16)) if dtype == 'bfloat16' else b
            f = {'add': np.add, 'sub': np.subtract, 'mul': np.multiply, 'div': np.divide,
                 'max': np.maximum, 'min': np.minimum}[op]
            r = f(x, y)
            r = np.where(np.isnan(r), np.array(np.nan, dtype=r.dtype), r)  # the canonical (positive quiet) NaN
            want = f32_to_bf16(r) if dtype == 'bfloat16' else r.astype(dtype)
    got_bits = np.ascontiguousarray(got).reshape(-1).view(np.uint8)
    want_bits = np.ascontiguousarray(want).reshape(-1).view(np.uint8)
    if not np.array_equal(got_bits, want_bits):
        bad.append(f'case {i} {dtype} {op} {a.shape} {b.shape}')
print('OK' if not bad else 'MISMATCH ' + '; '.join(bad))
)PY";

std::string python(const std::string& script) { return numpy_bridge::run_python("build/unit/ew", script); }


rt::BinaryOp op_named(const std::string& name) {
  if (name == "add") return rt::BinaryOp::kAdd;
  if (name == "sub") return rt::BinaryOp::kSub;
  if (name == "mul") return rt::BinaryOp::kMul;
  if (name == "div") return rt::BinaryOp::kDiv;
  if (name == "max") return rt::BinaryOp::kMax;
  return rt::BinaryOp::kMin;
}

}  // namespace

TEST_CASE("binary ops with broadcasting equal NumPy bit for bit", "[elementwise]") {
  REQUIRE(std::system("mkdir -p build/unit/ew") == 0);
  const int cases = std::stoi(python(kGenerate));
  std::ifstream manifest("build/unit/ew/cases.json");
  const std::string json((std::istreambuf_iterator<char>(manifest)), std::istreambuf_iterator<char>());
  for (int i = 0; i < cases; ++i) {
    const std::string op_key = "\"i\": " + std::to_string(i) + ", \"op\": \"";
    const size_t at = json.find(op_key);
    REQUIRE(at != std::string::npos);
    const std::string op = json.substr(at + op_key.size(), 3);
    const std::string prefix = "build/unit/ew/" + std::to_string(i);
    const numpy_bridge::LoadedNpy a = numpy_bridge::load_npy(prefix + "_a.npy");
    const numpy_bridge::LoadedNpy b = numpy_bridge::load_npy(prefix + "_b.npy");
    rt::Result<rt::Shape> shape = rt::broadcast_shape(a.tensor.shape, b.tensor.shape);
    REQUIRE(shape.is_ok());
    const numpy_bridge::NpyOutput out = numpy_bridge::npy_output(a.tensor.dtype, *shape);
    INFO("case " << i);
    REQUIRE(rt::binary(op_named(op), a.tensor, b.tensor, out.tensor).is_ok());
    out.write(prefix + "_out.npy");
  }
  CHECK(python(kCheck) == "OK\n");
}

TEST_CASE("binary ops on strided views and their errors", "[elementwise]") {
  float data[6] = {1, 2, 3, 4, 5, 6};  // [[1,2,3],[4,5,6]]
  const int64_t dims[] = {2, 3};
  const rt::Tensor m = rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), data);
  const unsigned swap[] = {1, 0};
  const rt::Tensor t = *m.transpose(rt::Span<const unsigned>(swap, 2));  // [[1,4],[2,5],[3,6]]
  float column[3] = {10, 20, 30};
  const int64_t column_dims[] = {3, 1};
  const rt::Tensor c = rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(column_dims, 2)), column);
  float out[6] = {};
  const int64_t out_dims[] = {3, 2};
  const rt::Tensor o = rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(out_dims, 2)), out);
  REQUIRE(rt::binary(rt::BinaryOp::kAdd, t, c, o).is_ok());
  const float expected[6] = {11, 14, 22, 25, 33, 36};
  for (int i = 0; i < 6; ++i) CHECK(out[i] == expected[i]);
  const rt::Status incompatible = rt::binary(rt::BinaryOp::kAdd, m, c, o);
  CHECK(std::string(incompatible.message().data()) == "Incompatible shapes: [2, 3] vs. [3, 1]");
  const rt::Status wrong_out = rt::binary(rt::BinaryOp::kAdd, t, c, m);
  CHECK(std::string(wrong_out.message().data()) == "add: output shape [2, 3] is not the broadcast shape [3, 2]");
  // Operands of different dtypes: TF's eager text, its op names and its kernel dtype names, by hand.
  int32_t ints[3] = {1, 2, 3};
  const rt::Tensor i = rt::Tensor::contiguous(rt::DType::kI32, *rt::Shape::make(rt::Span<const int64_t>(column_dims, 2)), ints);
  CHECK(std::string(rt::binary(rt::BinaryOp::kAdd, t, i, o).message().data()) ==
        "cannot compute AddV2 as input #1(zero-based) was expected to be a float tensor but is a int32 tensor");
  CHECK(std::string(rt::binary(rt::BinaryOp::kDiv, t, i, o).message().data()) ==
        "cannot compute RealDiv as input #1(zero-based) was expected to be a float tensor but is a int32 tensor");
  CHECK(std::string(rt::binary(rt::BinaryOp::kMax, i, t, o).message().data()) ==
        "cannot compute Maximum as input #1(zero-based) was expected to be a int32 tensor but is a float tensor");
  const rt::Tensor int_out = rt::Tensor::contiguous(rt::DType::kI32, *rt::Shape::make(rt::Span<const int64_t>(out_dims, 2)), out);
  CHECK(std::string(rt::binary(rt::BinaryOp::kAdd, t, c, int_out).message().data()) ==
        "add: the output is int32, the operands float32");
}

TEST_CASE("binary ops over views whose dimensions merge only in part, and in place", "[elementwise]") {
  // a: rows 1..4 of every [6, 5] block of a [4, 6, 5] buffer (strides 30, 5, 1: its last two
  // dimensions step as one, its first does not); b: [4, 1, 5], broadcast along the middle.
  std::vector<float> buffer(4 * 6 * 5), b_data(4 * 5);
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<float>(i) * 0.5f;
  for (size_t i = 0; i < b_data.size(); ++i) b_data[i] = 100.0f + static_cast<float>(i);
  const int64_t buffer_dims[] = {4, 6, 5}, b_dims[] = {4, 1, 5}, out_dims[] = {4, 4, 5};
  const rt::Tensor whole =
      rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(buffer_dims, 3)), buffer.data());
  const rt::Tensor a = *whole.slice(1, 1, 5);
  const rt::Tensor b =
      rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(b_dims, 3)), b_data.data());
  std::vector<float> out_data(4 * 4 * 5, -1.0f);
  const rt::Tensor out =
      rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(out_dims, 3)), out_data.data());
  REQUIRE(rt::binary(rt::BinaryOp::kSub, a, b, out).is_ok());
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k) {
        INFO(i << "," << j << "," << k);
        CHECK(out_data[(i * 4 + j) * 5 + k] == buffer[(i * 6 + j + 1) * 5 + k] - b_data[i * 5 + k]);
      }
  // In place (out is a itself, one merged row): every element once, the rows outside the view untouched.
  const std::vector<float> before = buffer;
  REQUIRE(rt::binary(rt::BinaryOp::kMul, a, a, a).is_ok());
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 5; ++k) {
        const size_t at = (i * 6 + j) * 5 + k;
        INFO(i << "," << j << "," << k);
        CHECK(buffer[at] == (j >= 1 && j <= 4 ? before[at] * before[at] : before[at]));
      }
}
