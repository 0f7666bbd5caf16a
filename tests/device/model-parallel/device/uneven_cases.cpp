// Uneven shards (runtime/tpu/TF_BEHAVIOUR.md section 6): tensors whose split dimension is unknown
// (padded, as replicate's maximum_shapes pads a dynamic size: real R of D) split over the N logical
// devices of one replica spanning the whole board, D = 2N + 1 (uneven for every N > 1: pieces of 3,
// the last ones part or all padding), R = min(N + 2, D - 1). The padding holds NaN, so any padding
// read as data shows. Each result is gathered and its real part (its real sizes must be the unsplit
// op's) checked against the unsplit op on the real data alone (unpadded copies) on core 0:
//   split -> gather round trip; exp; add of two pieces times a replicated bias; a tiled tensor minus
//   an unpadded replicated [D, 6] (its block past D zero-filled); reduce_sum and reduce_mean
//   (keepdims) over the uneven rows of small integers (exact), reduce_max over both axes,
//   reduce_min over the unsplit axis; softmax / log_softmax of [4, D] over its uneven split axis
//   (within 2R ulps, and (2R + 8) 2^-24 max(1, |y|): spmd_softmax.hpp; the padded columns written 0
//   as the unsplit op writes them), softmax over the unsplit axis of the uneven rows (same bits);
//   matmul split on uneven rows, on an uneven contracting dimension (partial products
//   all-reduced; K's padding skipped), on uneven columns (B drives), and with both operands split
//   along the uneven K: small integers, the same bits.
// Then conv2d of an unevenly split image is the runtime's UNIMPLEMENTED error (N > 1).
#include "runtime/log/log.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "runtime/tpu/spmd/spmd_conv2d.hpp"
#include "runtime/tpu/spmd/spmd_ops.hpp"
#include "uneven.hpp"

namespace model_parallel_test {
namespace {

using rt::Result;
using rt::Status;
using rt::Tensor;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ReplicaOutputs;
using rt::tpu::ShardedTensor;
namespace spmd = rt::tpu::spmd;

const int kAxis0[] = {0};
const int kAxis1[] = {1};
const int kBothAxes[] = {0, 1};

Result<Tensor> round_trip(const UnevenArgs& in, int64_t n) { return gathered(split_2d(in[kX], n, 1)); }

Result<Tensor> exp_case(const UnevenArgs& in, int64_t n) {
  Result<ShardedTensor> x = split_2d(in[kX], n, 1);
  if (!x) return x.status();
  return gathered(spmd::unary(rt::UnaryOp::kExp, *x));
}

Result<Tensor> add_mul(const UnevenArgs& in, int64_t n) {
  Result<ShardedTensor> x = split_2d(in[kX], n, 1), y = split_2d(in[kY], n, 1);
  if (!x || !y) return !x ? x.status() : y.status();
  Result<ShardedTensor> sum = spmd::binary(rt::BinaryOp::kAdd, *x, *y);
  if (!sum) return sum.status();
  return gathered(spmd::binary(rt::BinaryOp::kMul, *sum, rt::tpu::replicate_to_logical_devices(in[kBias])));
}

Result<Tensor> sub_full(const UnevenArgs& in, int64_t n) {
  Result<ShardedTensor> x = split_2d(in[kX], n, 1);
  if (!x) return x.status();
  return gathered(spmd::binary(rt::BinaryOp::kSub, *x, rt::tpu::replicate_to_logical_devices(in[kZ])));
}

Result<Tensor> reduce_case(const Tensor& t, int64_t n, rt::ReduceAxesOp op, rt::Span<const int> axes, bool keepdims) {
  Result<ShardedTensor> x = split_2d(t, n, 1);
  if (!x) return x.status();
  return gathered(spmd::reduce(op, *x, axes, keepdims));
}

Result<Tensor> sum_rows(const UnevenArgs& in, int64_t n) {
  return reduce_case(in[kS], n, rt::ReduceAxesOp::kSum, kAxis0, false);
}
Result<Tensor> mean_rows(const UnevenArgs& in, int64_t n) {
  return reduce_case(in[kS], n, rt::ReduceAxesOp::kMean, kAxis0, true);
}
Result<Tensor> max_all(const UnevenArgs& in, int64_t n) {
  return reduce_case(in[kX], n, rt::ReduceAxesOp::kMax, kBothAxes, false);
}
Result<Tensor> min_columns(const UnevenArgs& in, int64_t n) {
  return reduce_case(in[kX], n, rt::ReduceAxesOp::kMin, kAxis1, false);
}

Result<Tensor> softmax_columns(const Tensor& w, int64_t n, bool log) {
  Result<ShardedTensor> x = split_2d(w, 1, n);
  if (!x) return x.status();
  return gathered(log ? spmd::log_softmax(*x, 1) : spmd::softmax(*x, 1));
}
Result<Tensor> softmax_case(const UnevenArgs& in, int64_t n) { return softmax_columns(in[kW], n, false); }
Result<Tensor> log_softmax_case(const UnevenArgs& in, int64_t n) { return softmax_columns(in[kW], n, true); }
Result<Tensor> softmax_rows(const UnevenArgs& in, int64_t n) {
  Result<ShardedTensor> x = split_2d(in[kX], n, 1);
  if (!x) return x.status();
  return gathered(spmd::softmax(*x, 1));
}

// A's and B's partitions ({1, 1}: replicated), then the product gathered.
Result<Tensor> matmul_case(const Tensor& a, const Tensor& b, const int64_t (&pa)[2], const int64_t (&pb)[2]) {
  auto sharded = [](const Tensor& t, const int64_t (&p)[2]) -> Result<ShardedTensor> {
    if (p[0] == 1 && p[1] == 1) return rt::tpu::replicate_to_logical_devices(t);
    return split_2d(t, p[0], p[1]);
  };
  Result<ShardedTensor> sa = sharded(a, pa), sb = sharded(b, pb);
  if (!sa || !sb) return !sa ? sa.status() : sb.status();
  return gathered(spmd::matmul(*sa, *sb));
}
Result<Tensor> matmul_rows(const UnevenArgs& in, int64_t n) { return matmul_case(in[kS], in[kB65], {n, 1}, {1, 1}); }
Result<Tensor> matmul_inner(const UnevenArgs& in, int64_t n) {
  return matmul_case(in[kK], in[kBD5], {1, n}, {1, 1});
}
Result<Tensor> matmul_columns(const UnevenArgs& in, int64_t n) {
  return matmul_case(in[kA46], in[kB6D], {1, 1}, {1, n});
}
Result<Tensor> matmul_both(const UnevenArgs& in, int64_t n) {
  return matmul_case(in[kK], in[kBD5Padded], {1, n}, {n, 1});
}

using DeviceCase = Result<Tensor> (*)(const UnevenArgs&, int64_t n);
constexpr DeviceCase kDeviceCases[kNumUnevenOutputs] = {
    round_trip,   exp_case,    add_mul,        sub_full,         sum_rows,     mean_rows,   max_all,        min_columns,
    softmax_case, log_softmax_case, softmax_rows, matmul_rows, matmul_inner, matmul_columns, matmul_both};

Status tour(ReplicaContext& replica, ReplicaArgs args, ReplicaOutputs& outputs) {
  const int64_t n = replica.num_logical_cores();
  const UnevenArgs in = with_real_sizes(args, uneven_sizes(static_cast<unsigned>(n)));
  for (const DeviceCase run : kDeviceCases) {
    Result<Tensor> value = run(in, n);
    if (!value) return value.status();
    RT_RETURN_IF_ERROR(outputs.add(*value));
  }
  return Status::ok();
}

// conv2d of an image whose padded height D splits unevenly over the N devices.
Status uneven_conv(ReplicaContext& replica, ReplicaArgs args, ReplicaOutputs&) {
  const int64_t n = replica.num_logical_cores();
  Tensor image = args[0];
  image.shape.real[1] = image.shape.dims[1] - 1;
  const int64_t partition[] = {1, n, 1, 1};
  Result<ShardedTensor> x = rt::tpu::split_to_logical_devices(image, partition);
  if (!x) return x.status();
  rt::Conv2dOptions same;
  same.padding = rt::ConvPadding::kSame;
  return spmd::conv2d(*x, rt::tpu::replicate_to_logical_devices(args[1]), same).status();
}

Status check_uneven_conv(const rt::tpu::DeviceAssignment& whole_board, unsigned cores) {
  const int64_t d = uneven_sizes(cores).d, image_dims[] = {1, d, 4, 1}, filter_dims[] = {3, 3, 1, 1};
  Result<Tensor> image = random_f32(rt::hbm(), image_dims, 71), filter = random_f32(rt::hbm(), filter_dims, 72);
  if (!image || !filter) return !image ? image.status() : filter.status();
  const Tensor args[] = {*image, *filter};
  const rt::tpu::Computation computation{"uneven_conv", uneven_conv, {2}};
  rt::tpu::ReplicateOptions options;
  options.device_assignment = &whole_board;
  const ReplicaArgs inputs[] = {ReplicaArgs(args, 2)};
  rt::FixedString<384> text;
  format_to(text, "conv2d over logical devices: the input of shape [1, {}, 4, 1] is tiled [1, {}, 1, 1] over {} "
            "logical devices with uneven shards (dimension 1 of size {} in {} pieces of 3); uneven shards are "
            "supported by the elementwise ops, reductions, softmax and matmul, not by conv2d: split a dimension that "
            "divides evenly", d, cores, cores, d, cores);
  return expect_error(rt::tpu::replicate(computation, inputs, options, result()), rt::StatusCode::kUnimplemented,
                      text.view(), "conv2d of an unevenly split image");
}

}  // namespace

Status run_uneven_cases(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  const UnevenSizes sizes = uneven_sizes(cores);
  Result<UnevenInputs> in = make_uneven_inputs(sizes);
  if (!in) return in.status();
  const rt::tpu::Computation computation{"uneven_shards", tour, {kNumUnevenArgs}};
  RT_RETURN_IF_ERROR(replicate_over_whole_board(cores, computation, ReplicaArgs(in->args, kNumUnevenArgs)));
  RT_RETURN_IF_ERROR(check_uneven_outputs(result()[0], *in, sizes));
  if (cores > 1) RT_RETURN_IF_ERROR(check_uneven_conv(RT_TRY(assignment(cores, mesh_shape(cores).span(), 1)), cores));
  rt::log_info("model-parallel uneven shards: [{}] (real {}) in {} pieces of {}: split / gather, elementwise, "
               "reductions, softmax, matmul (rows, K, columns, both) equal the unsplit ops on the real data{}: ok",
               sizes.d, sizes.r, cores, (sizes.d + cores - 1) / cores, cores > 1 ? "; uneven conv2d refused" : "");
  return Status::ok();
}

}  // namespace model_parallel_test
