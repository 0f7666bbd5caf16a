// ops: every core runs the tensor ops (unary incl. exp/log/tanh/erf-based gelu, axis reductions,
// softmax, broadcasting binary ops, casts, conv2d on its MXU) on deterministic inputs in its own
// arena, checks a few hand-known values, and core 0 prints "OPS-HASH <hex>", a hash of every
// result bit of every core: the harness requires the same hash on the host, qemu-virt-a53 and
// qemu-virt-rv64 (the ops are written to be bit-identical on every board; NumPy checks their
// values in the host unit tests).
#include "firmware/app.hpp"
#include "firmware/splitmix.hpp"
#include "runtime/collectives/collectives.hpp"
#include "runtime/dtype/half.hpp"
#include "runtime/log/log.hpp"
#include "runtime/mxu/core_mxu.hpp"
#include "runtime/ops/cast.hpp"
#include "runtime/ops/conv2d.hpp"
#include "runtime/ops/elementwise.hpp"
#include "runtime/ops/reduce_axes.hpp"
#include "runtime/ops/softmax.hpp"
#include "runtime/ops/unary.hpp"
#include "runtime/tensor/hbm.hpp"

namespace {

using rt::DType;
using rt::Status;

class Hash {
 public:
  void add(const rt::Tensor& t) {  // contiguous results only
    const size_t bytes = t.num_elements() * t.element_size();
    for (size_t i = 0; i < bytes; ++i) value_ = (value_ ^ t.data[i]) * 0x100000001b3ull;
  }
  uint64_t value() const { return value_; }

 private:
  uint64_t value_ = 0xcbf29ce484222325ull;
};

rt::Result<rt::Tensor> make(DType dtype, rt::Span<const int64_t> dims, const char* what) {
  rt::Result<rt::Shape> shape = rt::Shape::make(dims);
  if (!shape) return shape.status();
  return rt::hbm().allocate_tensor(dtype, *shape, what);
}

// Values over many binades, both signs, with zeros, infinities and NaN sprinkled in.
void fill_float(const rt::Tensor& t, uint64_t seed, float scale_log2_range) {
  for (size_t i = 0; i < t.num_elements(); ++i) {
    const uint64_t bits = firmware::splitmix64(seed + i);
    float v = static_cast<float>(static_cast<int32_t>(bits & 0xffffff) - 0x800000) / static_cast<float>(0x800000);
    const int exponent = static_cast<int>((bits >> 24) % static_cast<uint64_t>(2 * scale_log2_range + 1)) -
                         static_cast<int>(scale_log2_range);
    v = __builtin_ldexpf(v, exponent);
    if (i % 97 == 5) v = 0.0f;
    if (i % 389 == 7) v = __builtin_inff();
    if (i % 401 == 9) v = -__builtin_inff();
    if (i % 503 == 11) v = __builtin_nanf("");
    if (t.dtype == DType::kBF16) {
      const uint16_t b = rt::to_bfloat16(v).bits;
      __builtin_memcpy(t.data + 2 * i, &b, 2);
    } else {
      __builtin_memcpy(t.data + 4 * i, &v, 4);
    }
  }
}

float float_at(const rt::Tensor& t, size_t i) {
  float v;
  __builtin_memcpy(&v, t.data + 4 * i, 4);
  return v;
}

Status unary_ops(uint64_t seed, Hash& hash) {
  const int64_t dims[] = {4096};
  const rt::UnaryOp ops[] = {rt::UnaryOp::kRelu, rt::UnaryOp::kExp, rt::UnaryOp::kLog, rt::UnaryOp::kTanh,
                             rt::UnaryOp::kSigmoid, rt::UnaryOp::kGelu, rt::UnaryOp::kGeluTanh, rt::UnaryOp::kSqrt,
                             rt::UnaryOp::kRsqrt};
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    rt::Result<rt::Tensor> in = make(dtype, dims, "unary input"), out = make(dtype, dims, "unary output");
    if (!in) return in.status();
    if (!out) return out.status();
    fill_float(*in, seed, 12);
    for (rt::UnaryOp op : ops) {
      RT_RETURN_IF_ERROR(rt::unary(op, *in, *out));
      hash.add(*out);
    }
  }
  // Hand-known values: exp(0) = 1, log(1) = 0, tanh(0) = 0 exactly.
  const int64_t three[] = {3};
  rt::Result<rt::Tensor> known = make(DType::kF32, three, "known"), result = make(DType::kF32, three, "known out");
  if (!known || !result) return rt::internal_error("ops: no room for the known-value check");
  const float inputs[] = {0.0f, 1.0f, 0.0f};
  __builtin_memcpy(known->data, inputs, sizeof(inputs));
  RT_RETURN_IF_ERROR(rt::unary(rt::UnaryOp::kExp, *known, *result));
  if (float_at(*result, 0) != 1.0f) return rt::internal_error("ops: exp(0) = {}, not 1", float_at(*result, 0));
  RT_RETURN_IF_ERROR(rt::unary(rt::UnaryOp::kLog, *known, *result));
  if (float_at(*result, 1) != 0.0f) return rt::internal_error("ops: log(1) = {}, not 0", float_at(*result, 1));
  return Status::ok();
}

Status reductions_and_softmax(uint64_t seed, Hash& hash) {
  const int64_t dims[] = {48, 33}, rows[] = {48}, cols[] = {33};
  rt::Result<rt::Tensor> in = make(DType::kF32, dims, "reduce input");
  if (!in) return in.status();
  fill_float(*in, seed ^ 0x5, 6);
  for (rt::ReduceAxesOp op : {rt::ReduceAxesOp::kSum, rt::ReduceAxesOp::kMean, rt::ReduceAxesOp::kMax}) {
    for (int axis : {0, 1}) {
      rt::Result<rt::Tensor> out = make(DType::kF32, axis == 0 ? cols : rows, "reduce output");
      if (!out) return out.status();
      const int axes[] = {axis};
      RT_RETURN_IF_ERROR(rt::reduce_axes(op, *in, rt::Span<const int>(axes, 1), false, *out));
      hash.add(*out);
    }
  }
  rt::Result<rt::Tensor> logits = make(DType::kF32, dims, "logits"), probabilities = make(DType::kF32, dims, "softmax");
  if (!logits || !probabilities) return rt::internal_error("ops: no room for softmax");
  fill_float(*logits, seed ^ 0x7, 3);
  for (size_t i = 0; i < logits->num_elements(); ++i)  // finite logits, so every row sums to ~1
    if (!__builtin_isfinite(float_at(*logits, i))) __builtin_memset(logits->data + 4 * i, 0, 4);
  RT_RETURN_IF_ERROR(rt::softmax(*logits, *probabilities));
  hash.add(*probabilities);
  for (int64_t r = 0; r < dims[0]; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < dims[1]; ++c) sum += float_at(*probabilities, static_cast<size_t>(r * dims[1] + c));
    if (sum < 0.9999 || sum > 1.0001) return rt::internal_error("ops: softmax row {} sums to {}", r, sum);
  }
  RT_RETURN_IF_ERROR(rt::log_softmax(*logits, *probabilities));
  hash.add(*probabilities);
  return Status::ok();
}

Status binary_and_cast(uint64_t seed, Hash& hash) {
  const int64_t a_dims[] = {17, 64}, b_dims[] = {64};
  rt::Result<rt::Tensor> a = make(DType::kF32, a_dims, "a"), b = make(DType::kF32, b_dims, "b");
  rt::Result<rt::Tensor> out = make(DType::kF32, a_dims, "a op b");
  rt::Result<rt::Tensor> as_bf16 = make(DType::kBF16, a_dims, "cast bf16"), as_int = make(DType::kI32, a_dims, "cast i32");
  if (!a || !b || !out || !as_bf16 || !as_int) return rt::internal_error("ops: no room for binary/cast");
  fill_float(*a, seed ^ 0x11, 20);
  fill_float(*b, seed ^ 0x13, 20);
  for (rt::BinaryOp op : {rt::BinaryOp::kAdd, rt::BinaryOp::kMul, rt::BinaryOp::kDiv, rt::BinaryOp::kMax}) {
    RT_RETURN_IF_ERROR(rt::binary(op, *a, *b, *out));
    hash.add(*out);
  }
  RT_RETURN_IF_ERROR(rt::cast(*out, *as_bf16));
  hash.add(*as_bf16);
  RT_RETURN_IF_ERROR(rt::cast(*out, *as_int));  // saturating, NaN -> 0
  hash.add(*as_int);
  return Status::ok();
}

Status convolution(uint64_t seed, Hash& hash) {
  const int64_t in_dims[] = {2, 9, 11, 3}, filter_dims[] = {3, 3, 3, 5};
  rt::Result<rt::Tensor> input = make(DType::kF32, in_dims, "conv input"), filter = make(DType::kF32, filter_dims, "filter");
  if (!input) return input.status();
  if (!filter) return filter.status();
  fill_float(*input, seed ^ 0x21, 2);
  fill_float(*filter, seed ^ 0x23, 2);
  for (size_t i = 0; i < input->num_elements(); ++i)
    if (!__builtin_isfinite(float_at(*input, i))) __builtin_memset(input->data + 4 * i, 0, 4);
  rt::Conv2dOptions options;
  options.padding = rt::ConvPadding::kSame;
  options.strides[0] = 2;
  rt::Result<rt::Shape> shape = rt::conv2d_output_shape(input->shape, filter->shape, options);
  if (!shape) return shape.status();
  rt::Result<rt::Tensor> output = rt::hbm().allocate_tensor(DType::kF32, *shape, "conv output");
  if (!output) return output.status();
  RT_RETURN_IF_ERROR(rt::conv2d(rt::core_mxu(), rt::hbm(), *input, *filter, options, *output));
  hash.add(*output);
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  rt::hbm().reset();
  Hash hash;
  const uint64_t seed = firmware::splitmix64(context.core + 1);
  RT_RETURN_IF_ERROR(unary_ops(seed, hash));
  RT_RETURN_IF_ERROR(reductions_and_softmax(seed, hash));
  RT_RETURN_IF_ERROR(binary_and_cast(seed, hash));
  RT_RETURN_IF_ERROR(convolution(seed, hash));
  rt::Collectives collectives(rt::ReplicaSet::one_per_core(context.cores), context.core);
  uint64_t mine = hash.value(), hashes[hal::kMaxCores] = {};
  RT_RETURN_IF_ERROR(collectives.all_gather(DType::kI64, &mine, hashes, 1));
  if (context.core == 0) {
    uint64_t combined = 0;
    for (unsigned core = 0; core < context.cores; ++core) combined = firmware::splitmix64(combined ^ hashes[core]);
    rt::log_info("OPS-HASH {:#018x}", combined);
  }
  return Status::ok();
}

}  // namespace

const firmware::App firmware::kApp = {"ops", "tensor ops on every core, hashed for cross-board comparison", run};
