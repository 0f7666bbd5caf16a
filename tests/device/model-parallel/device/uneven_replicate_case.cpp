// Uneven shards of inputs replicate padded (runtime/tpu/TF_BEHAVIOUR.md sections 1 and 6): two
// replicas of two logical cores each (computation_shape [1, 1, 1, 2]), replica r's input [5 - 2r, 4]
// (small integers) padded by maximum_shapes [7, 4] to 7 rows (real 5 and 3), split [2, 1] into
// pieces of 4 rows (real 4 + 1, and 3 + 0). Each replica returns its gathered input (the real part
// must be its own input) and reduce_mean over the split rows (its own rows' mean, the same bits as
// the unsplit op on them). With an unknown maximum under kAuto the rows pad to 5, the longest
// input's size: on replica 0 the dimension is then known (real size = size) and 5 in 2 pieces is
// TF's divisibility error, which replicate reports (the deviation TF_BEHAVIOUR.md describes).
// Boards where two replicas of two cores do not fit skip the case with a log line.
#include "runtime/log/log.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/ops/reduce_axes.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/replicate/dynamic_padding.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "runtime/tpu/spmd/spmd_ops.hpp"
#include "suite.hpp"

namespace model_parallel_test {
namespace {

using rt::Result;
using rt::Status;
using rt::Tensor;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ReplicaOutputs;
using rt::tpu::ShardedTensor;

constexpr int kReplicas = 2;
const int kRows[] = {0};

int64_t rows_of(int replica) { return 5 - 2 * replica; }

Status split_mean(ReplicaContext&, ReplicaArgs args, ReplicaOutputs& outputs) {
  const int64_t partition[] = {2, 1};
  Result<ShardedTensor> x = rt::tpu::split_to_logical_devices(args[0], partition);
  if (!x) return x.status();
  Result<Tensor> whole = rt::tpu::gather_from_logical_devices(*x);
  if (!whole) return whole.status();
  RT_RETURN_IF_ERROR(outputs.add(*whole));
  Result<ShardedTensor> mean = rt::tpu::spmd::reduce(rt::ReduceAxesOp::kMean, *x, kRows);
  if (!mean) return mean.status();
  Result<Tensor> gathered = rt::tpu::gather_from_logical_devices(*mean);
  if (!gathered) return gathered.status();
  return outputs.add(*gathered);
}

Status run_padded(const rt::tpu::DeviceAssignment& assigned, const Tensor* inputs, int64_t maximum_rows,
                  rt::Status* error) {
  ReplicaArgs args[kReplicas];
  for (int r = 0; r < kReplicas; ++r) args[r] = ReplicaArgs(&inputs[r], 1);
  const int64_t maximum_dims[] = {maximum_rows, 4};
  const rt::tpu::MaximumShape maximum = rt::tpu::MaximumShape::of(maximum_dims);
  rt::tpu::ReplicateOptions options;
  options.device_assignment = &assigned;
  options.maximum_shapes = rt::Span<const rt::tpu::MaximumShape>(&maximum, 1);
  const rt::tpu::Computation computation{"split_mean", split_mean, {1}};
  const Status status =
      rt::tpu::replicate(computation, rt::Span<const ReplicaArgs>(args, kReplicas), options, result());
  if (error == nullptr) return status;
  *error = status;
  return Status::ok();
}

Result<Tensor> real_rows(const Tensor& t) {
  Result<Tensor> view = t.slice(0, 0, t.shape.real[0]);
  if (!view) return view;
  Result<Tensor> out = rt::hbm().allocate_tensor(t.dtype, view->shape, "real rows");
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::copy(*view, *out));
  return out;
}

Result<Tensor> reference_mean(const Tensor& input) {
  Result<rt::Shape> shape = rt::reduced_shape(input.shape, kRows, false);
  if (!shape) return shape.status();
  Result<Tensor> out = rt::hbm().allocate_tensor(input.dtype, *shape, "reference mean");
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::reduce_axes(rt::ReduceAxesOp::kMean, input, kRows, false, *out));
  return out;
}

Status check_replica(int r, const Tensor& input) {
  const ReplicaOutputs& outputs = result()[r];
  if (outputs.size() != 2) return rt::internal_error("replica {} returned {} values, expected 2", r, outputs.size());
  if (outputs[0].shape.dims[0] != 7 || outputs[0].shape.real[0] != rows_of(r))
    return rt::internal_error("replica {}: the gathered input has {} rows (real {}), expected 7 (real {})", r,
                              outputs[0].shape.dims[0], outputs[0].shape.real[0], rows_of(r));
  Result<Tensor> whole = real_rows(outputs[0]);
  Result<Tensor> mean = reference_mean(input);
  if (!whole || !mean) return !whole ? whole.status() : mean.status();
  RT_RETURN_IF_ERROR(expect_same_bits(*whole, input, "an uneven split of a padded input, gathered"));
  return expect_same_bits(outputs[1], *mean, "reduce_mean over the uneven rows of a padded input");
}

Status run_case(const rt::tpu::DeviceAssignment& assigned) {
  Tensor inputs[kReplicas];
  for (int r = 0; r < kReplicas; ++r) {
    const int64_t dims[] = {rows_of(r), 4};
    Result<Tensor> t = small_integers(rt::hbm(), rt::DType::kF32, dims, 900 + r);
    if (!t) return t.status();
    inputs[r] = *t;
  }
  RT_RETURN_IF_ERROR(run_padded(assigned, inputs, 7, nullptr));
  for (int r = 0; r < kReplicas; ++r) RT_RETURN_IF_ERROR(check_replica(r, inputs[r]));
  Status known = Status::ok();
  RT_RETURN_IF_ERROR(run_padded(assigned, inputs, rt::tpu::kUnknownSize, &known));
  return expect_error(known, rt::StatusCode::kInvalidArgument,
                      "Tensor shape at `partition_dimensions[0]` must be divisible by corresponding value specified "
                      "by `partition_dimensions` (2). Received: 5.",
                      "an uneven split of the longest replica's input (a known dimension there)");
}

}  // namespace

Status run_uneven_replicate_case(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  const int32_t computation_shape[] = {1, 1, 1, 2};
  Result<rt::tpu::DeviceAssignment> assigned = assignment(cores, computation_shape, kReplicas);
  if (!assigned) {
    rt::log_info("model-parallel uneven shards of replicate-padded inputs: skipped: {} cores (mesh {}) hold no two "
                 "replicas of two cores",
                 cores, mesh_shape(cores).span());
    return Status::ok();
  }
  RT_RETURN_IF_ERROR(run_case(*assigned));
  rt::log_info("model-parallel uneven shards of replicate-padded inputs: 2 replicas x 2 logical devices, rows padded "
               "to 7 (real 5 and 3) split [2, 1], gathered and averaged; the longest input unpadded under kAuto: TF's "
               "divisibility error: ok");
  return Status::ok();
}

}  // namespace model_parallel_test
