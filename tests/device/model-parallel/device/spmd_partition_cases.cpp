// Matmul and conv2d partitioned as XLA's SPMD partitioner does, over the logical devices of one
// replica spanning the whole board (N = cores, grid [r, c] = [grid_rows(N), N / r]), each result
// gathered and checked bit for bit against the unsplit op on core 0:
//   matmul with both operands split: A [2r, 2c] tiled [r, c] (rows and K) x B [2c, 3r] tiled [c, r]
//   (K and columns): B is all-gathered and sliced to each device's K tile, partial products are
//   all-reduced across A's K tiles; float32 small integers and int8 (every partial sum exact);
//   A replicated x B [2c, 3r] tiled [c, r] (B drives; A sliced to B's K tile): small integers;
//   conv2d 3x3 SAME of [1, 2r, 4, 2c] tiled [1, r, 1, c] (height and channels) with a replicated
//   filter (halo exchange, then partial outputs all-reduced across the channel tiles) and with a
//   filter tiled [1, 1, c, r] (gathered, then sliced to each device's input channels): small integers;
//   conv2d 3x3 SAME stride 2 of random float32 [1, 4r, 4c, 2] tiled [1, r, c, 1] (a one-row halo
//   after each tile), and 3x3 VALID of [B, 8, 8, 2] tiled [B, 2, 2, 1] where N allows (B = N / 4;
//   2 rows [1, 2, 1, 1]; else batch only): each output's chain whole on one core, the same bits;
//   conv2d of a replicated input with a filter tiled [1, 1, 1, N] (output channels): the same bits.
#include "runtime/log/log.hpp"
#include "runtime/mxu/core_mxu.hpp"
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
using rt::tpu::ReplicaOutputs;
using rt::tpu::ShardedTensor;
namespace spmd = rt::tpu::spmd;

enum Arg { kA, kB, kA8, kB8, kImage, kFilter, kStrided, kValid, kFilter2, kWide, kNumArgs };
enum Output { k2dMatmul, k2dMatmulInt8, kBDriven, kChannelConv, kChannelConvTiledFilter, kStridedConv, kValidConv,
              kOutputChannelConv, kNumOutputs };

struct Grid {
  int64_t rows, columns;
};

Grid grid_of(unsigned n) { return Grid{grid_rows(n), n / grid_rows(n)}; }

// The [batch, height, width] split of the VALID convolution's [B, 8, 8, 2] input.
struct ValidSplit {
  int64_t batch, height, width;
};

ValidSplit valid_split(unsigned n) {
  if (n % 4 == 0) return ValidSplit{n / 4, 2, 2};
  if (n == 2) return ValidSplit{1, 2, 1};
  return ValidSplit{n, 1, 1};
}

rt::Conv2dOptions conv(rt::ConvPadding padding, int64_t stride) {
  rt::Conv2dOptions options;
  options.padding = padding;
  options.strides[0] = options.strides[1] = stride;
  return options;
}

const rt::Conv2dOptions kConvs[] = {conv(rt::ConvPadding::kSame, 1), conv(rt::ConvPadding::kSame, 2),
                                    conv(rt::ConvPadding::kValid, 1)};

Result<ShardedTensor> split(const Tensor& t, rt::Span<const int64_t> partition) {
  return rt::tpu::split_to_logical_devices(t, partition);
}

Result<Tensor> matmul_2d(const Tensor& a, const Tensor& b, const Grid& g, bool a_replicated) {
  const int64_t a_split[] = {g.rows, g.columns}, b_split[] = {g.columns, g.rows};
  Result<ShardedTensor> sa = a_replicated ? Result<ShardedTensor>(rt::tpu::replicate_to_logical_devices(a)) : split(a, a_split);
  Result<ShardedTensor> sb = split(b, b_split);
  if (!sa || !sb) return !sa ? sa.status() : sb.status();
  return gathered(spmd::matmul(*sa, *sb));
}

Result<Tensor> split_conv(const Tensor& image, rt::Span<const int64_t> image_split, const Tensor& filter,
                          rt::Span<const int64_t> filter_split, const rt::Conv2dOptions& options) {
  Result<ShardedTensor> x = image_split.empty() ? Result<ShardedTensor>(rt::tpu::replicate_to_logical_devices(image))
                                                : split(image, image_split);
  Result<ShardedTensor> w = filter_split.empty() ? Result<ShardedTensor>(rt::tpu::replicate_to_logical_devices(filter))
                                                 : split(filter, filter_split);
  if (!x || !w) return !x ? x.status() : w.status();
  return gathered(spmd::conv2d(*x, *w, options));
}

Status tour(ReplicaContext& replica, ReplicaArgs args, ReplicaOutputs& outputs) {
  const unsigned n = replica.num_logical_cores();
  const Grid g = grid_of(n);
  const ValidSplit v = valid_split(n);
  const int64_t channels[] = {1, g.rows, 1, g.columns}, in_channels[] = {1, 1, g.columns, g.rows};
  const int64_t spatial[] = {1, g.rows, g.columns, 1}, valid[] = {v.batch, v.height, v.width, 1};
  const int64_t out_channels[] = {1, 1, 1, static_cast<int64_t>(n)};
  const rt::Span<const int64_t> none;
  const Result<Tensor> results[] = {
      matmul_2d(args[kA], args[kB], g, false),
      matmul_2d(args[kA8], args[kB8], g, false),
      matmul_2d(args[kA], args[kB], g, true),
      split_conv(args[kImage], channels, args[kFilter], none, kConvs[0]),
      split_conv(args[kImage], channels, args[kFilter], in_channels, kConvs[0]),
      split_conv(args[kStrided], spatial, args[kFilter2], none, kConvs[1]),
      split_conv(args[kValid], valid, args[kFilter2], none, kConvs[2]),
      split_conv(args[kStrided], none, args[kWide], out_channels, kConvs[0]),
  };
  return add_outputs(outputs, results);
}

struct Inputs {
  Tensor args[kNumArgs];
};

Result<Inputs> make_inputs(unsigned n) {
  const Grid g = grid_of(n);
  const int64_t dims[kNumArgs][4] = {
      {2 * g.rows, 2 * g.columns}, {2 * g.columns, 3 * g.rows},     {2 * g.rows, 2 * g.columns},
      {2 * g.columns, 3 * g.rows}, {1, 2 * g.rows, 4, 2 * g.columns}, {3, 3, 2 * g.columns, 3 * g.rows},
      {1, 4 * g.rows, 4 * g.columns, 2}, {valid_split(n).batch, 8, 8, 2}, {3, 3, 2, 3},
      {3, 3, 2, static_cast<int64_t>(n)}};
  const unsigned ranks[kNumArgs] = {2, 2, 2, 2, 4, 4, 4, 4, 4, 4};
  Inputs in;
  for (unsigned a = 0; a < kNumArgs; ++a) {
    const rt::Span<const int64_t> shape(dims[a], ranks[a]);
    const bool exact = a <= kFilter;
    const rt::DType dtype = a == kA8 || a == kB8 ? rt::DType::kI8 : rt::DType::kF32;
    Result<Tensor> t = exact ? small_integers(rt::hbm(), dtype, shape, 700 + a) : random_f32(rt::hbm(), shape, 700 + a);
    if (!t) return t.status();
    in.args[a] = *t;
  }
  return in;
}

Result<Tensor> reference_conv(const Tensor& image, const Tensor& filter, const rt::Conv2dOptions& options) {
  Result<rt::Shape> shape = rt::conv2d_output_shape(image.shape, filter.shape, options);
  if (!shape) return shape.status();
  Result<Tensor> out = rt::hbm().allocate_tensor(rt::DType::kF32, *shape, "reference");
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::conv2d(rt::core_mxu(), rt::hbm(), image, filter, options, *out));
  return out;
}

Status check_outputs(const ReplicaOutputs& outputs, const Inputs& in) {
  if (outputs.size() != kNumOutputs) return rt::internal_error("{} outputs, expected {}", outputs.size(), kNumOutputs);
  const Tensor* x = in.args;
  const Result<Tensor> expected[] = {
      reference_matmul(x[kA], x[kB]),          reference_matmul(x[kA8], x[kB8]),
      reference_matmul(x[kA], x[kB]),          reference_conv(x[kImage], x[kFilter], kConvs[0]),
      reference_conv(x[kImage], x[kFilter], kConvs[0]), reference_conv(x[kStrided], x[kFilter2], kConvs[1]),
      reference_conv(x[kValid], x[kFilter2], kConvs[2]), reference_conv(x[kStrided], x[kWide], kConvs[0])};
  const char* const names[] = {"matmul [r, c] x [c, r] (rows and K x K and columns)", "int8 matmul [r, c] x [c, r]",
                               "matmul replicated x [c, r]", "conv2d split on height and channels",
                               "conv2d split on height and channels, filter split on input and output channels",
                               "conv2d SAME stride 2 split on height and width", "conv2d VALID split on batch and space",
                               "conv2d split on output channels"};
  for (unsigned k = 0; k < kNumOutputs; ++k) {
    if (!expected[k]) return expected[k].status();
    RT_RETURN_IF_ERROR(expect_same_bits(outputs[k], *expected[k], names[k]));
  }
  return Status::ok();
}

}  // namespace

Status run_spmd_partition_cases(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  Result<Inputs> in = make_inputs(cores);
  if (!in) return in.status();
  const rt::tpu::Computation computation{"spmd_partitioning", tour, {kNumArgs}};
  RT_RETURN_IF_ERROR(replicate_over_whole_board(cores, computation, ReplicaArgs(in->args, kNumArgs)));
  RT_RETURN_IF_ERROR(check_outputs(result()[0], *in));
  const Grid g = grid_of(cores);
  const ValidSplit v = valid_split(cores);
  rt::log_info("model-parallel spmd partitioning over grid [{}, {}] of {} logical devices: 2-D matmul (f32, int8, "
               "B-driven), conv2d channel splits (replicated and split filters), SAME stride 2 and VALID [{}, {}, {}, "
               "1] spatial splits, output-channel split: ok",
               g.rows, g.columns, cores, v.batch, v.height, v.width);
  return Status::ok();
}

}  // namespace model_parallel_test
