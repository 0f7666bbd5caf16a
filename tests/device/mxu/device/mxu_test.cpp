// mxu: every core multiplies matrices on its MXU (float32, bfloat16, int8; shapes with edge tiles),
// with operands in its own arena, and checks each result bit for bit against a naive loop on the
// same core (float32 also with operands stored transposed, read through transpose_a/transpose_b). Core 0 prints "MXU-HASH <hex>", a hash of every core's result bits: the harness
// requires the same hash on the host, qemu-virt-a53 and qemu-virt-rv64 (bit-identical numerics).
#include "firmware/app.hpp"
#include "firmware/splitmix.hpp"
#include "runtime/collectives/collectives.hpp"
#include "runtime/dtype/half.hpp"
#include "runtime/log/log.hpp"
#include "runtime/mxu/core_mxu.hpp"
#include "runtime/tensor/hbm.hpp"

namespace {

using rt::DType;
using rt::Status;

using firmware::splitmix64;
uint64_t mix(uint64_t x) { return splitmix64(x); }

void fill(const rt::Tensor& t, uint64_t seed) {
  for (size_t i = 0; i < t.num_elements(); ++i) {
    const uint64_t bits = mix(seed + i);
    if (t.dtype == DType::kI8) {
      t.data[i] = static_cast<uint8_t>(bits);
    } else {
      const float value = static_cast<float>(static_cast<int32_t>(bits & 0xffff) - 32768) / 4096.0f;
      if (t.dtype == DType::kBF16) {
        const uint16_t b = rt::to_bfloat16(value).bits;
        __builtin_memcpy(t.data + 2 * i, &b, 2);
      } else {
        __builtin_memcpy(t.data + 4 * i, &value, 4);
      }
    }
  }
}

float as_float(const rt::Tensor& t, size_t i) {
  if (t.dtype == DType::kBF16) {
    uint16_t b;
    __builtin_memcpy(&b, t.data + 2 * i, 2);
    return rt::to_float(rt::BFloat16{b});
  }
  float v;
  __builtin_memcpy(&v, t.data + 4 * i, 4);
  return v;
}

// The documented order, as a plain loop: k ascending, one fused multiply-add per step.
uint32_t naive_element(const rt::Tensor& a, const rt::Tensor& b, int64_t m, int64_t n) {
  const int64_t k_size = a.shape.dims[1], n_size = b.shape.dims[1];
  if (a.dtype == DType::kI8) {
    uint32_t acc = 0;
    for (int64_t k = 0; k < k_size; ++k)
      acc += static_cast<uint32_t>(static_cast<int8_t>(a.data[m * k_size + k]) * static_cast<int8_t>(b.data[k * n_size + n]));
    return acc;
  }
  float acc = 0.0f;
  for (int64_t k = 0; k < k_size; ++k)
    acc = __builtin_fmaf(as_float(a, static_cast<size_t>(m * k_size + k)), as_float(b, static_cast<size_t>(k * n_size + n)), acc);
  uint32_t bits;
  __builtin_memcpy(&bits, &acc, 4);
  return bits;
}

// A copy of matrix `t` transposed, in the arena.
rt::Result<rt::Tensor> transposed_copy(const rt::Tensor& t) {
  const int64_t rows = t.shape.dims[0], columns = t.shape.dims[1];
  const int64_t dims[] = {columns, rows};
  const rt::Tensor out = RT_TRY(rt::hbm().allocate_tensor(t.dtype, RT_TRY(rt::Shape::make(dims)), "transposed"));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < columns; ++j) __builtin_memcpy(out.data + 4 * (j * rows + i), t.data + 4 * (i * columns + j), 4);
  return out;
}

// tf.linalg.matmul's transpose_a / transpose_b (core_mxu.hpp): A and B stored transposed and read
// through the options give the same bits as `c` (= A x B).
Status transposed_operands(const rt::Tensor& a, const rt::Tensor& b, const rt::Tensor& c) {
  const rt::Tensor a_t = RT_TRY(transposed_copy(a)), b_t = RT_TRY(transposed_copy(b));
  const rt::Tensor both = RT_TRY(rt::matmul(rt::hbm(), a_t, b_t, {.transpose_a = true, .transpose_b = true}));
  const rt::Tensor only_a = RT_TRY(rt::matmul(rt::hbm(), a_t, b, {.transpose_a = true}));
  const rt::Tensor only_b = RT_TRY(rt::matmul(rt::hbm(), a, b_t, {.transpose_b = true}));
  for (const rt::Tensor* result : {&both, &only_a, &only_b})
    for (size_t i = 0; i < c.num_elements(); ++i)
      if (__builtin_memcmp(result->data + 4 * i, c.data + 4 * i, 4) != 0)
        return rt::internal_error("f32 matmul {}x{}x{} with transposed operands ({}): element {} differs from A x B",
                                  a.shape.dims[0], a.shape.dims[1], b.shape.dims[1],
                                  result == &both ? "both" : result == &only_a ? "transpose_a" : "transpose_b", i);
  return Status::ok();
}

Status one_case(DType dtype, int64_t m, int64_t k, int64_t n, uint64_t seed, uint64_t& hash) {
  rt::Arena& arena = rt::hbm();
  arena.reset();
  const int64_t a_dims[] = {m, k}, b_dims[] = {k, n}, c_dims[] = {m, n};
  rt::Result<rt::Tensor> a = arena.allocate_tensor(dtype, *rt::Shape::make(rt::Span<const int64_t>(a_dims, 2)), "A");
  rt::Result<rt::Tensor> b = arena.allocate_tensor(dtype, *rt::Shape::make(rt::Span<const int64_t>(b_dims, 2)), "B");
  const DType out = dtype == DType::kI8 ? DType::kI32 : DType::kF32;
  rt::Result<rt::Tensor> c = arena.allocate_tensor(out, *rt::Shape::make(rt::Span<const int64_t>(c_dims, 2)), "C");
  if (!a) return a.status();
  if (!b) return b.status();
  if (!c) return c.status();
  fill(*a, seed);
  fill(*b, seed ^ 0xb);
  RT_RETURN_IF_ERROR(rt::matmul(rt::core_mxu(), *a, *b, *c));
  for (int64_t row = 0; row < m; ++row)
    for (int64_t col = 0; col < n; ++col) {
      uint32_t got;
      __builtin_memcpy(&got, c->data + 4 * (row * n + col), 4);
      const uint32_t want = naive_element(*a, *b, row, col);
      if (got != want)
        return rt::internal_error("{} matmul {}x{}x{}: C[{}][{}] is {:#x}, the naive loop gives {:#x}", rt::dtype_name(dtype),
                                  m, k, n, row, col, got, want);
      hash = (hash ^ got) * 0x100000001b3ull;  // FNV-1a over the result words
    }
  if (dtype == DType::kF32) return transposed_operands(*a, *b, *c);
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  uint64_t hash = 0xcbf29ce484222325ull;
  const DType types[] = {DType::kF32, DType::kBF16, DType::kI8};
  const int64_t shapes[][3] = {{1, 1, 1}, {7, 129, 130}, {33, 256, 17}, {5, 0, 3}, {64, 200, 128}};
  for (DType dtype : types)
    for (const auto& s : shapes)
      RT_RETURN_IF_ERROR(one_case(dtype, s[0], s[1], s[2], mix(context.core * 1000 + s[0] * 7 + s[1]), hash));
  rt::Collectives collectives(rt::ReplicaSet::one_per_core(context.cores), context.core);
  uint64_t hashes[hal::kMaxCores] = {};
  RT_RETURN_IF_ERROR(collectives.all_gather(DType::kI64, &hash, hashes, 1));
  if (context.core == 0) {
    rt::log_info("MXU tile {}x{}, float kernel {}", rt::core_mxu().tile(), rt::core_mxu().tile(),
                 rt::core_mxu().float_kernel().name);
    uint64_t combined = 0;
    for (unsigned core = 0; core < context.cores; ++core) combined = mix(combined ^ hashes[core]);
    rt::log_info("MXU-HASH {:#018x}", combined);
  }
  return Status::ok();
}

}  // namespace

const firmware::App firmware::kApp = {"mxu", "MXU matmuls against naive loops, hashed for cross-board comparison", run};
