// Model parallelism and data parallelism together: several replicas, each spanning several cores.
// Every replica splits its own image over its logical devices, convolves it (conv3x3 SAME with halo
// exchange), and cross_replica_sum adds the pieces across replicas: it acts between the same
// logical core of each replica (as on a TPU), so each piece is summed with the same piece of the
// other replicas. The gathered sum must equal the sum, in replica order, of the unsplit convolutions.
// Layout: computation_shape [1, 1, 2, 2] (4 logical devices, split [1, 2, 2, 1]) with every replica
// that fits (2 on 8 cores, 4 on 16), else [1, 1, 1, 2] (2 logical devices, split [1, 1, 2, 1]) on
// 4 cores; boards where two replicas of two cores do not fit skip the case with a log line.
#include "runtime/log/log.hpp"
#include "runtime/mxu/core_mxu.hpp"
#include "runtime/ops/elementwise.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "runtime/tpu/spmd/spmd_conv2d.hpp"
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

struct Layout {
  int32_t computation_shape[4];
  int64_t partition[4];
};

rt::Conv2dOptions same_padding() {
  rt::Conv2dOptions options;
  options.padding = rt::ConvPadding::kSame;
  return options;
}

// args: image, filter. Output: the gathered cross-replica sum of the convolution.
Status conv_then_cross_replica_sum(const Layout& layout, ReplicaContext& replica, ReplicaArgs args,
                                   ReplicaOutputs& outputs) {
  Result<ShardedTensor> image =
      rt::tpu::split_to_logical_devices(args[0], rt::Span<const int64_t>(layout.partition, 4));
  if (!image) return image.status();
  Result<ShardedTensor> conv =
      rt::tpu::spmd::conv2d(*image, rt::tpu::replicate_to_logical_devices(args[1]), same_padding());
  if (!conv) return conv.status();
  Result<Tensor> summed = replica.cross_replica_sum(conv->local);
  if (!summed) return summed.status();
  Result<Tensor> whole = rt::tpu::gather_from_logical_devices(
      rt::tpu::make_sharded(conv->dtype, conv->shape, conv->sharding, *summed));
  if (!whole) return whole.status();
  return outputs.add(*whole);
}

Result<Tensor> reference_conv(const Tensor& image, const Tensor& filter) {
  Result<rt::Shape> shape = rt::conv2d_output_shape(image.shape, filter.shape, same_padding());
  if (!shape) return shape.status();
  Result<Tensor> out = rt::hbm().allocate_tensor(rt::DType::kF32, *shape, "reference conv");
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::conv2d(rt::core_mxu(), rt::hbm(), image, filter, same_padding(), *out));
  return out;
}

// sum over replicas in replica order of the unsplit convolutions (what the all-reduce computes).
Result<Tensor> reference_sum(const Tensor* images, int replicas, const Tensor& filter) {
  Result<Tensor> sum = reference_conv(images[0], filter);
  for (int r = 1; sum && r < replicas; ++r) {
    Result<Tensor> next = reference_conv(images[r], filter);
    if (!next) return next;
    RT_RETURN_IF_ERROR(rt::binary(rt::BinaryOp::kAdd, *sum, *next, *sum));
  }
  return sum;
}

Status run_layout(const Layout& layout, const rt::tpu::DeviceAssignment& assigned) {
  const int replicas = assigned.num_replicas();
  const int64_t image_dims[] = {1, 4 * layout.partition[1], 4 * layout.partition[2], 2};
  const int64_t filter_dims[] = {3, 3, 2, 3};
  Result<Tensor> filter = random_f32(rt::hbm(), filter_dims, 201);
  if (!filter) return filter.status();
  Tensor images[rt::tpu::kMaxReplicas], args[rt::tpu::kMaxReplicas][2];
  ReplicaArgs inputs[rt::tpu::kMaxReplicas];
  for (int r = 0; r < replicas; ++r) {
    Result<Tensor> image = random_f32(rt::hbm(), image_dims, 300 + r);
    if (!image) return image.status();
    images[r] = *image, args[r][0] = *image, args[r][1] = *filter;
    inputs[r] = ReplicaArgs(args[r], 2);
  }
  const rt::tpu::Computation computation{"conv_then_cross_replica_sum",
                                         [&layout](ReplicaContext& replica, ReplicaArgs args, ReplicaOutputs& outputs) {
                                           return conv_then_cross_replica_sum(layout, replica, args, outputs);
                                         },
                                         {2}};
  rt::tpu::ReplicateOptions options;
  options.device_assignment = &assigned;
  RT_RETURN_IF_ERROR(
      rt::tpu::replicate(computation, rt::Span<const ReplicaArgs>(inputs, replicas), options, result()));
  Result<Tensor> expected = reference_sum(images, replicas, *filter);
  if (!expected) return expected.status();
  for (int r = 0; r < replicas; ++r) {
    if (result()[r].size() != 1) return rt::internal_error("replica {} returned {} values, expected 1", r, result()[r].size());
    RT_RETURN_IF_ERROR(expect_same_bits(result()[r][0], *expected, "cross_replica_sum of split convolutions"));
  }
  rt::log_info("model-parallel cross-replica: {} replicas x {} logical devices (computation_shape {}), "
               "cross_replica_sum between the same logical core of each replica: ok",
               replicas, assigned.num_cores_per_replica(), rt::Span<const int32_t>(layout.computation_shape, 4));
  return Status::ok();
}

}  // namespace

Status run_cross_replica_case(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  const Layout layouts[] = {{{1, 1, 2, 2}, {1, 2, 2, 1}}, {{1, 1, 1, 2}, {1, 1, 2, 1}}};
  for (const Layout& layout : layouts) {
    const rt::Span<const int32_t> shape(layout.computation_shape, 4);
    Result<rt::tpu::DeviceAssignment> assigned = assignment(cores, shape, rt::tpu::DeviceAssignment::kAllReplicas);
    if (assigned && assigned->num_replicas() >= 2) return run_layout(layout, *assigned);
  }
  rt::log_info("model-parallel cross-replica: skipped: {} cores (mesh {}) hold no two replicas of two or more cores",
               cores, mesh_shape(cores).span());
  return Status::ok();
}

}  // namespace model_parallel_test
