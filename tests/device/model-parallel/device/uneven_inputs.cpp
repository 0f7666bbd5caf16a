// The uneven-shards suite's inputs and checks: padded views, NaN padding, and the unsplit ops run on
// unpadded copies of the real data.
#include <string.h>

#include "runtime/mxu/core_mxu.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/ops/elementwise.hpp"
#include "runtime/ops/reduce_axes.hpp"
#include "runtime/ops/softmax.hpp"
#include "runtime/ops/unary.hpp"
#include "runtime/tensor/hbm.hpp"
#include "uneven.hpp"

namespace model_parallel_test {
namespace {

using rt::Result;
using rt::Status;
using rt::Tensor;

// The dimension each argument is padded in (-1: none).
constexpr int kPaddedDim[kNumUnevenArgs] = {0, 0, -1, -1, 0, 1, 1, -1, -1, 0, -1, 1};

Tensor padded(const Tensor& t, int dim, int64_t real) {
  Tensor view = t;
  if (dim >= 0) view.shape.real[dim] = real;
  return view;
}

// Fills the padding of `t` (padded along `dim` at real size `real`) with NaN.
Status fill_padding_with_nan(const Tensor& t, unsigned dim, int64_t real) {
  Result<Tensor> padding = t.slice(dim, real, t.shape.dims[dim]);
  if (!padding) return padding.status();
  Result<Tensor> nan = rt::hbm().allocate_tensor(rt::DType::kF32, rt::Shape{}, "a NaN");
  if (!nan) return nan.status();
  nan->scalar<float>() = __builtin_nanf("");
  Tensor broadcast = *padding;
  broadcast.data = nan->data;
  for (unsigned d = 0; d < broadcast.shape.rank; ++d) broadcast.strides[d] = 0;
  return rt::copy(broadcast, *padding);
}

// An unpadded copy (in hbm) of `t`'s real elements.
Result<Tensor> real_part(const Tensor& t) {
  Tensor view = t;
  for (unsigned d = 0; d < t.shape.rank; ++d) {
    Result<Tensor> sliced = view.slice(d, 0, t.shape.real[d]);
    if (!sliced) return sliced;
    view = *sliced;
  }
  Result<Tensor> out = rt::hbm().allocate_tensor(t.dtype, view.shape, "a real part");
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::copy(view, *out));
  return out;
}

Result<Tensor> allocate_like(rt::DType dtype, const rt::Shape& shape) {
  return rt::hbm().allocate_tensor(dtype, shape, "a reference");
}

Result<Tensor> unary(rt::UnaryOp op, const Tensor& x) {
  Result<Tensor> out = allocate_like(x.dtype, x.shape);
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::unary(op, x, *out));
  return out;
}

Result<Tensor> binary(rt::BinaryOp op, const Tensor& a, const Tensor& b) {
  Result<rt::Shape> shape = rt::broadcast_shape(a.shape, b.shape);
  if (!shape) return shape.status();
  Result<Tensor> out = allocate_like(a.dtype, *shape);
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::binary(op, a, b, *out));
  return out;
}

Result<Tensor> reduce(rt::ReduceAxesOp op, const Tensor& x, rt::Span<const int> axes, bool keepdims) {
  Result<rt::Shape> shape = rt::reduced_shape(x.shape, axes, keepdims);
  if (!shape) return shape.status();
  Result<Tensor> out = allocate_like(x.dtype, *shape);
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::reduce_axes(op, x, axes, keepdims, *out));
  return out;
}

Result<Tensor> softmax(const Tensor& x, bool log) {
  Result<Tensor> out = allocate_like(x.dtype, x.shape);
  if (!out) return out;
  RT_RETURN_IF_ERROR(log ? rt::log_softmax(x, *out, 1) : rt::softmax(x, *out, 1));
  return out;
}

// The real data of every argument (unpadded copies), indexed like the arguments.
struct RealData {
  Tensor args[kNumUnevenArgs];
  Tensor z_rows, bd5_rows;  // Z's and BD5's first R rows
};

Result<RealData> real_data(const UnevenInputs& in, const UnevenSizes& sizes) {
  RealData data;
  for (unsigned k = 0; k < kNumUnevenArgs; ++k) {
    Result<Tensor> real = real_part(padded(in.args[k], kPaddedDim[k], sizes.r));
    if (!real) return real.status();
    data.args[k] = *real;
  }
  Result<Tensor> z = real_part(padded(in.args[kZ], 0, sizes.r)), bd5 = real_part(padded(in.args[kBD5], 0, sizes.r));
  if (!z || !bd5) return !z ? z.status() : bd5.status();
  data.z_rows = *z, data.bd5_rows = *bd5;
  return data;
}

const int kAxis0[] = {0};
const int kAxis1[] = {1};
const int kBothAxes[] = {0, 1};

Result<Tensor> reference(UnevenOutput output, const RealData& real) {
  const Tensor* a = real.args;
  switch (output) {
    case kRoundTrip: return a[kX];
    case kExp: return unary(rt::UnaryOp::kExp, a[kX]);
    case kAddMul: {
      Result<Tensor> sum = binary(rt::BinaryOp::kAdd, a[kX], a[kY]);
      if (!sum) return sum;
      return binary(rt::BinaryOp::kMul, *sum, a[kBias]);
    }
    case kSubFull: return binary(rt::BinaryOp::kSub, a[kX], real.z_rows);
    case kSumRows: return reduce(rt::ReduceAxesOp::kSum, a[kS], kAxis0, false);
    case kMeanRows: return reduce(rt::ReduceAxesOp::kMean, a[kS], kAxis0, true);
    case kMaxAll: return reduce(rt::ReduceAxesOp::kMax, a[kX], kBothAxes, false);
    case kMinColumns: return reduce(rt::ReduceAxesOp::kMin, a[kX], kAxis1, false);
    case kSoftmax: return softmax(a[kW], false);
    case kLogSoftmax: return softmax(a[kW], true);
    case kSoftmaxRows: return softmax(a[kX], false);
    case kMatmulRows: return rt::matmul(rt::hbm(), a[kS], a[kB65]);
    case kMatmulInner: case kMatmulBoth: return rt::matmul(rt::hbm(), a[kK], real.bd5_rows);
    case kMatmulColumns: return rt::matmul(rt::hbm(), a[kA46], a[kB6D]);
    case kNumUnevenOutputs: break;
  }
  return rt::internal_error("no reference for output {}", static_cast<unsigned>(output));
}

const char* const kNames[kNumUnevenOutputs] = {
    "split -> gather round trip", "exp", "add of pieces times a replicated bias",
    "a piece minus an unpadded replicated tensor", "reduce_sum over the uneven rows",
    "reduce_mean over the uneven rows (keepdims)", "reduce_max over both axes", "reduce_min over the unsplit axis",
    "softmax over the uneven split axis", "log_softmax over the uneven split axis",
    "softmax over the unsplit axis", "matmul split on uneven rows", "matmul split on an uneven K",
    "matmul split on uneven columns", "matmul with both operands split on an uneven K"};

// The output's real sizes are the reference's sizes.
Status expect_real_sizes(const Tensor& actual, const Tensor& expected, const char* what) {
  bool same = actual.shape.rank == expected.shape.rank;
  for (unsigned d = 0; same && d < actual.shape.rank; ++d) same = actual.shape.real[d] == expected.shape.dims[d];
  if (same) return Status::ok();
  return rt::internal_error("{}: real sizes {} of {}, expected {}", what,
                            rt::Span<const int64_t>(actual.shape.real, actual.shape.rank), actual.shape.sizes(),
                            expected.shape.sizes());
}

// The padded columns of a softmax over its padded axis 1 are 0, as the unsplit op writes them.
Status expect_zero_padding(const Tensor& actual, const char* what) {
  Result<Tensor> padding = actual.slice(1, actual.shape.real[1], actual.shape.dims[1]);
  if (!padding) return padding.status();
  for (int64_t i = 0; i < padding->shape.dims[0]; ++i)
    for (int64_t j = 0; j < padding->shape.dims[1]; ++j)
      if (padding->at<float>(i, j) != 0.0f)
        return rt::internal_error("{}: padded element [{}, {}] is {}, expected 0", what, i, actual.shape.real[1] + j,
                                  padding->at<float>(i, j));
  return Status::ok();
}

Status compare(UnevenOutput output, const Tensor& actual, const Tensor& expected, int64_t r) {
  const char* what = kNames[output];
  RT_RETURN_IF_ERROR(expect_real_sizes(actual, expected, what));
  Result<Tensor> real = real_part(actual);
  if (!real) return real.status();
  if (output == kSoftmax) {
    RT_RETURN_IF_ERROR(expect_zero_padding(actual, what));
    return expect_within_ulps(*real, expected, static_cast<uint32_t>(2 * r), what);
  }
  if (output == kLogSoftmax) {
    RT_RETURN_IF_ERROR(expect_zero_padding(actual, what));
    return expect_within(*real, expected, static_cast<float>(2 * r + 8) / 16777216.0f, what);
  }
  return expect_same_bits(*real, expected, what);
}

Result<Tensor> make_arg(unsigned k, const UnevenSizes& s) {
  const int64_t dims[kNumUnevenArgs][2] = {{s.d, 6}, {s.d, 6}, {6, 0}, {s.d, 6}, {s.d, 6}, {4, s.d},
                                           {4, s.d}, {6, 5},  {s.d, 5}, {s.d, 5}, {4, 6},  {6, s.d}};
  const rt::Span<const int64_t> shape(dims[k], k == kBias ? 1 : 2);
  const bool integers = k == kS || k == kK || k == kB65 || k == kBD5 || k == kA46 || k == kB6D;
  return integers ? small_integers(rt::hbm(), rt::DType::kF32, shape, 700 + k) : random_f32(rt::hbm(), shape, 800 + k);
}

}  // namespace

UnevenSizes uneven_sizes(unsigned n) {
  const int64_t d = 2 * static_cast<int64_t>(n) + 1;
  const int64_t r = n + 2 < d - 1 ? n + 2 : d - 1;
  return UnevenSizes{n, d, r};
}

UnevenArgs with_real_sizes(rt::tpu::ReplicaArgs args, const UnevenSizes& sizes) {
  UnevenArgs in;
  for (unsigned k = 0; k < kNumUnevenArgs; ++k) in.args[k] = padded(args[k], kPaddedDim[k], sizes.r);
  return in;
}

Result<UnevenInputs> make_uneven_inputs(const UnevenSizes& sizes) {
  UnevenInputs in;
  for (unsigned k = 0; k < kNumUnevenArgs; ++k) {
    if (k == kBD5Padded) continue;
    Result<Tensor> t = make_arg(k, sizes);
    if (!t) return t.status();
    in.args[k] = *t;
  }
  in.args[kBD5Padded] = in.args[kBD5];  // the same data; the replica pads its rows
  for (const unsigned k : {kX, kS, kW, kK})
    RT_RETURN_IF_ERROR(fill_padding_with_nan(in.args[k], static_cast<unsigned>(kPaddedDim[k]), sizes.r));
  return in;
}

Status check_uneven_outputs(const rt::tpu::ReplicaOutputs& outputs, const UnevenInputs& in, const UnevenSizes& sizes) {
  if (outputs.size() != kNumUnevenOutputs)
    return rt::internal_error("{} outputs, expected {}", outputs.size(), kNumUnevenOutputs);
  Result<RealData> real = real_data(in, sizes);
  if (!real) return real.status();
  for (unsigned k = 0; k < kNumUnevenOutputs; ++k) {
    const UnevenOutput output = static_cast<UnevenOutput>(k);
    Result<Tensor> expected = reference(output, *real);
    if (!expected) return expected.status();
    RT_RETURN_IF_ERROR(compare(output, outputs[k], *expected, sizes.r));
  }
  return Status::ok();
}

}  // namespace model_parallel_test
