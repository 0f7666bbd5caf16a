// The seed example of runtime/tpu/TF_BEHAVIOUR.md section 6: an image [batch, height, width,
// channels] split with partition_dimensions [1, 2, 4, 1] over the 8 logical devices of one replica
// (computation_shape [1, 2, 2, 2] on 8 cores) runs a small convolutional model
//     conv3x3 SAME (3 -> 8 channels) -> relu -> conv3x3 SAME (8 -> 4 channels)
// on the pieces (halo exchange between neighbouring tiles, zeros at the image border); the pieces
// are gathered and checked bit for bit against the unsplit model run on core 0. Each logical core
// also reports who it is (replica, logical core, logical cores, core) through an all_gather over the
// replica's logical devices, checked against the device assignment.
// On 16 cores the seed runs as 2 replicas of 8 logical devices, then over all 16 ([1, 4, 4, 1]);
// on boards without 8 cores the same model runs over all the board's cores as one replica
// (partition [1, rows, cores / rows, 1]), and the log says so.
#include "runtime/log/log.hpp"
#include "runtime/mxu/core_mxu.hpp"
#include "runtime/ops/unary.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "runtime/tpu/spmd/spmd_conv2d.hpp"
#include "runtime/tpu/spmd/spmd_ops.hpp"
#include "suite.hpp"

namespace model_parallel_test {
namespace {

using rt::Result;
using rt::Status;
using rt::Tensor;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ShardedTensor;

constexpr int64_t kBatch = 2, kChannels = 3, kHidden = 8, kOutputs = 4, kTileSize = 4;

struct Layout {
  int32_t computation_shape[4];
  int num_replicas;
  int64_t partition[4];  // over [batch, height, width, channels]

  rt::Span<const int64_t> partition_dimensions() const { return rt::Span<const int64_t>(partition, 4); }
};

rt::Conv2dOptions same_padding() {
  rt::Conv2dOptions options;
  options.padding = rt::ConvPadding::kSame;
  return options;
}

const int64_t kFour[] = {4};

// [replica, logical core, logical cores, core] of every logical core of the caller's replica.
Result<Tensor> who_is_who(ReplicaContext& replica) {
  rt::tpu::LogicalDevices& devices = rt::tpu::logical_devices();
  Result<Tensor> mine = devices.arena().allocate_tensor(rt::DType::kI32, *rt::Shape::make(kFour), "identity");
  if (!mine) return mine;
  int32_t* values = reinterpret_cast<int32_t*>(mine->data);
  values[0] = static_cast<int32_t>(replica.replica_id());
  values[1] = static_cast<int32_t>(replica.logical_core());
  values[2] = static_cast<int32_t>(replica.num_logical_cores());
  values[3] = static_cast<int32_t>(replica.core());
  if (devices.logical_core() != replica.logical_core() || devices.num_logical_cores() != replica.num_logical_cores())
    return rt::internal_error("LogicalDevices and ReplicaContext disagree on core {}", replica.core());
  return devices.all_gather(*mine);
}

// conv3x3 -> relu -> conv3x3 on the caller's tile.
Result<ShardedTensor> model(const ShardedTensor& image, const Tensor& filter1, const Tensor& filter2) {
  Result<ShardedTensor> hidden =
      rt::tpu::spmd::conv2d(image, rt::tpu::replicate_to_logical_devices(filter1), same_padding());
  if (!hidden) return hidden;
  Result<ShardedTensor> activated = rt::tpu::spmd::unary(rt::UnaryOp::kRelu, *hidden);
  if (!activated) return activated;
  return rt::tpu::spmd::conv2d(*activated, rt::tpu::replicate_to_logical_devices(filter2), same_padding());
}

// The unsplit model on core 0's MXU.
Result<Tensor> reference_model(const Tensor& image, const Tensor& filter1, const Tensor& filter2) {
  rt::Arena& arena = rt::hbm();
  Result<rt::Shape> hidden_shape = rt::conv2d_output_shape(image.shape, filter1.shape, same_padding());
  if (!hidden_shape) return hidden_shape.status();
  Result<Tensor> hidden = arena.allocate_tensor(rt::DType::kF32, *hidden_shape, "reference hidden");
  if (!hidden) return hidden;
  RT_RETURN_IF_ERROR(rt::conv2d(rt::core_mxu(), arena, image, filter1, same_padding(), *hidden));
  RT_RETURN_IF_ERROR(rt::unary(rt::UnaryOp::kRelu, *hidden, *hidden));
  Result<rt::Shape> out_shape = rt::conv2d_output_shape(*hidden_shape, filter2.shape, same_padding());
  if (!out_shape) return out_shape.status();
  Result<Tensor> out = arena.allocate_tensor(rt::DType::kF32, *out_shape, "reference output");
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::conv2d(rt::core_mxu(), arena, *hidden, filter2, same_padding(), *out));
  return out;
}

Status expect_identities(const Tensor& identities, const rt::tpu::DeviceAssignment& assignment, unsigned replica) {
  const int32_t* values = reinterpret_cast<const int32_t*>(identities.data);
  const unsigned n = static_cast<unsigned>(assignment.num_cores_per_replica());
  if (identities.num_elements() != 4 * n)
    return rt::internal_error("replica {}: {} identity values, expected {}", replica, identities.num_elements(), 4 * n);
  for (unsigned l = 0; l < n; ++l) {
    const int32_t expected[4] = {static_cast<int32_t>(replica), static_cast<int32_t>(l), static_cast<int32_t>(n),
                                 assignment.core_of(static_cast<int>(replica), static_cast<int>(l))};
    for (unsigned k = 0; k < 4; ++k)
      if (values[4 * l + k] != expected[k])
        return rt::internal_error("replica {} logical core {} reported [{}, {}, {}, {}], expected [{}, {}, {}, {}]",
                                  replica, l, values[4 * l], values[4 * l + 1], values[4 * l + 2], values[4 * l + 3],
                                  expected[0], expected[1], expected[2], expected[3]);
  }
  return Status::ok();
}

// Every replica r gets its own image (seed r); its gathered output must equal the unsplit model's.
Status run_layout(unsigned cores, const Layout& layout) {
  rt::tpu::PodMemoryScope memory(cores);
  Result<rt::tpu::DeviceAssignment> assigned =
      assignment(cores, rt::Span<const int32_t>(layout.computation_shape, 4), layout.num_replicas);
  if (!assigned) return assigned.status();
  const int64_t image_dims[] = {kBatch, kTileSize * layout.partition[1], kTileSize * layout.partition[2], kChannels};
  const int64_t filter1_dims[] = {3, 3, kChannels, kHidden}, filter2_dims[] = {3, 3, kHidden, kOutputs};
  Result<Tensor> filter1 = random_f32(rt::hbm(), filter1_dims, 101), filter2 = random_f32(rt::hbm(), filter2_dims, 102);
  if (!filter1 || !filter2) return !filter1 ? filter1.status() : filter2.status();
  Tensor args[rt::tpu::kMaxReplicas][3];
  ReplicaArgs inputs[rt::tpu::kMaxReplicas];
  for (int r = 0; r < layout.num_replicas; ++r) {
    Result<Tensor> image = random_f32(rt::hbm(), image_dims, 7 + r);
    if (!image) return image.status();
    args[r][0] = *image, args[r][1] = *filter1, args[r][2] = *filter2;
    inputs[r] = ReplicaArgs(args[r], 3);
  }
  // Each logical core: its tile of the image, the model on the tiles, the output gathered, and who it is.
  auto split_model = [layout](ReplicaContext& replica, const Tensor& image, const Tensor& filter1,
                              const Tensor& filter2) -> Result<rt::Array<Tensor, 2>> {
    const ShardedTensor tiles = RT_TRY(rt::tpu::split_to_logical_devices(image, layout.partition_dimensions()));
    const ShardedTensor output = RT_TRY(model(tiles, filter1, filter2));
    return rt::Array<Tensor, 2>{RT_TRY(rt::tpu::gather_from_logical_devices(output)), RT_TRY(who_is_who(replica))};
  };
  rt::tpu::ReplicateOptions options;
  options.device_assignment = &*assigned;
  const rt::tpu::Replicated output =
      RT_TRY(rt::tpu::replicate(split_model, rt::Span<const ReplicaArgs>(inputs, layout.num_replicas), options));
  for (int r = 0; r < layout.num_replicas; ++r) {
    Result<Tensor> expected = reference_model(args[r][0], *filter1, *filter2);
    if (!expected) return expected.status();
    if (output[r].size() != 2) return rt::internal_error("replica {} returned {} values, expected 2", r, output[r].size());
    RT_RETURN_IF_ERROR(expect_same_bits(output[r][0], *expected, "split model against the unsplit model"));
    RT_RETURN_IF_ERROR(expect_identities(output[r][1], *assigned, static_cast<unsigned>(r)));
  }
  rt::log_info("model-parallel seed: image {} split {} over {} logical devices x {} replicas (computation_shape {}): "
               "bit-identical to the unsplit model",
               rt::Span<const int64_t>(image_dims, 4), layout.partition_dimensions(),
               assigned->num_cores_per_replica(), layout.num_replicas,
               rt::Span<const int32_t>(layout.computation_shape, 4));
  return Status::ok();
}

// One replica over the whole mesh, the image split [1, rows, cores / rows, 1].
Layout whole_mesh_layout(unsigned cores) {
  const rt::tpu::MeshShape mesh = mesh_shape(cores);
  const unsigned rows = grid_rows(cores);
  return Layout{{mesh[0], mesh[1], mesh[2], mesh[3]}, 1, {1, rows, cores / rows, 1}};
}

}  // namespace

Status run_seed_example(unsigned cores) {
  const Layout seed{{1, 2, 2, 2}, 1, {1, 2, 4, 1}};
  if (cores == 8) return run_layout(cores, seed);
  if (cores == 16) {
    RT_RETURN_IF_ERROR(run_layout(cores, Layout{{1, 2, 2, 2}, 2, {1, 2, 4, 1}}));
    return run_layout(cores, whole_mesh_layout(cores));
  }
  const Layout fallback = whole_mesh_layout(cores);
  rt::log_info("model-parallel seed: the [1, 2, 4, 1] split over computation_shape [1, 2, 2, 2] needs 8 cores and "
               "this board runs {}; running the same model split {} over the {} cores of one replica instead",
               cores, fallback.partition_dimensions(), cores);
  return run_layout(cores, fallback);
}

}  // namespace model_parallel_test
