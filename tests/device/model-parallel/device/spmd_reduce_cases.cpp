// Reductions and softmax over the logical devices of one replica spanning the whole board (N = cores
// logical devices, grid [r, c] = [grid_rows(N), N / r]), each result gathered and checked against the
// unsplit op on core 0:
//   reduce_sum over the split columns of small integers [2r, 3c] tiled [r, c] (all-reduce over each
//   row of the grid; the result's rows stay tiled, each tile on c devices), reduce_mean over the rows
//   (keepdims), reduce_prod over the columns: every partial result is exact, so the bits are the
//   unsplit op's; reduce_max over both axes and reduce_min over the columns of random float32 (max
//   and min do not depend on the order: the same bits); reduce_sum of [N, 4] tiled [N, 1] over its
//   unsplit axis (piece-local: the same chain, the same bits);
//   softmax and log_softmax of random float32 [2r, 4c] tiled [r, c] over the split axis 1 (max and
//   sum all-reduced): the sum of exponentials is reassociated, so softmax is checked within 2L ulps
//   and log_softmax within (2L + 8) 2^-24 max(1, |y|) (L = 4c, the axis length; spmd_softmax.hpp
//   derives the bounds); softmax of [N, 4] tiled [N, 1] over its unsplit axis 1: the same bits.
#include "runtime/log/log.hpp"
#include "runtime/ops/softmax.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "runtime/tpu/spmd/spmd_ops.hpp"
#include "suite.hpp"

namespace model_parallel_test {
namespace {

using rt::ReduceAxesOp;
using rt::Result;
using rt::Status;
using rt::Tensor;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ReplicaOutputs;
using rt::tpu::ShardedTensor;
namespace spmd = rt::tpu::spmd;

enum Arg { kSmall, kRandom, kRows, kNumArgs };
enum Output { kSumColumns, kMeanRows, kProdColumns, kMaxAll, kMinColumns, kSumUnsplit, kSoftmax, kLogSoftmax,
              kSoftmaxUnsplit, kNumOutputs };

struct Grid {
  int64_t rows, columns;
};

Grid grid_of(unsigned n) { return Grid{grid_rows(n), n / grid_rows(n)}; }

const int kAxis0[] = {0};
const int kAxis1[] = {1};
const int kBothAxes[] = {0, 1};

struct ReduceCase {
  Arg arg;
  ReduceAxesOp op;
  rt::Span<const int> axes;
  bool keepdims;
  bool rows_only;  // split [N, 1] instead of [r, c]
};

const ReduceCase kReduceCases[] = {
    {kSmall, ReduceAxesOp::kSum, kAxis1, false, false},  {kSmall, ReduceAxesOp::kMean, kAxis0, true, false},
    {kSmall, ReduceAxesOp::kProd, kAxis1, false, false}, {kRandom, ReduceAxesOp::kMax, kBothAxes, false, false},
    {kRandom, ReduceAxesOp::kMin, kAxis1, true, false},  {kRows, ReduceAxesOp::kSum, kAxis1, false, true},
};
constexpr unsigned kNumReduceCases = sizeof(kReduceCases) / sizeof(kReduceCases[0]);

Result<ShardedTensor> split(const Tensor& t, bool rows_only, unsigned n) {
  const Grid grid = grid_of(n);
  const int64_t dims[] = {rows_only ? static_cast<int64_t>(n) : grid.rows, rows_only ? 1 : grid.columns};
  return rt::tpu::split_to_logical_devices(t, dims);
}

Result<Tensor> split_reduce(const ReduceCase& c, ReplicaArgs args, unsigned n) {
  Result<ShardedTensor> x = split(args[c.arg], c.rows_only, n);
  if (!x) return x.status();
  return gathered(spmd::reduce(c.op, *x, c.axes, c.keepdims));
}

Result<Tensor> split_softmax(const Tensor& t, bool rows_only, bool log, unsigned n) {
  Result<ShardedTensor> x = split(t, rows_only, n);
  if (!x) return x.status();
  return gathered(log ? spmd::log_softmax(*x, 1) : spmd::softmax(*x, 1));
}

Status tour(ReplicaContext& replica, ReplicaArgs args, ReplicaOutputs& outputs) {
  const unsigned n = replica.num_logical_cores();
  for (const ReduceCase& c : kReduceCases) {
    Result<Tensor> value = split_reduce(c, args, n);
    if (!value) return value.status();
    RT_RETURN_IF_ERROR(outputs.add(*value));
  }
  const Result<Tensor> softmaxes[] = {split_softmax(args[kRandom], false, false, n),
                                      split_softmax(args[kRandom], false, true, n),
                                      split_softmax(args[kRows], true, false, n)};
  return add_outputs(outputs, softmaxes);
}

struct Inputs {
  Tensor args[kNumArgs];
};

Result<Inputs> make_inputs(unsigned n) {
  const Grid g = grid_of(n);
  const int64_t small[] = {2 * g.rows, 3 * g.columns}, random[] = {2 * g.rows, 4 * g.columns}, rows[] = {static_cast<int64_t>(n), 4};
  Inputs in;
  Result<Tensor> a = small_integers(rt::hbm(), rt::DType::kF32, small, 601);
  Result<Tensor> b = random_f32(rt::hbm(), random, 602);
  Result<Tensor> c = random_f32(rt::hbm(), rows, 603);
  if (!a || !b || !c) return !a ? a.status() : !b ? b.status() : c.status();
  in.args[kSmall] = *a, in.args[kRandom] = *b, in.args[kRows] = *c;
  return in;
}

Result<Tensor> reference_reduce(const ReduceCase& c, const Inputs& in) {
  const Tensor& x = in.args[c.arg];
  Result<rt::Shape> shape = rt::reduced_shape(x.shape, c.axes, c.keepdims);
  if (!shape) return shape.status();
  Result<Tensor> out = rt::hbm().allocate_tensor(x.dtype, *shape, "reference reduction");
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::reduce_axes(c.op, x, c.axes, c.keepdims, *out));
  return out;
}

Result<Tensor> reference_softmax(const Tensor& x, bool log) {
  Result<Tensor> out = rt::hbm().allocate_tensor(x.dtype, x.shape, "reference softmax");
  if (!out) return out;
  RT_RETURN_IF_ERROR(log ? rt::log_softmax(x, *out, 1) : rt::softmax(x, *out, 1));
  return out;
}

Status check_reductions(const ReplicaOutputs& outputs, const Inputs& in) {
  const char* const names[] = {"reduce_sum over split columns", "reduce_mean over split rows (keepdims)",
                               "reduce_prod over split columns", "reduce_max over both split axes",
                               "reduce_min over split columns (keepdims)", "reduce_sum over an unsplit axis"};
  for (unsigned k = 0; k < kNumReduceCases; ++k) {
    Result<Tensor> expected = reference_reduce(kReduceCases[k], in);
    if (!expected) return expected.status();
    RT_RETURN_IF_ERROR(expect_same_bits(outputs[k], *expected, names[k]));
  }
  return Status::ok();
}

Status check_softmaxes(const ReplicaOutputs& outputs, const Inputs& in) {
  const int64_t length = in.args[kRandom].shape.dims[1];
  Result<Tensor> soft = reference_softmax(in.args[kRandom], false);
  Result<Tensor> log = reference_softmax(in.args[kRandom], true);
  Result<Tensor> unsplit = reference_softmax(in.args[kRows], false);
  if (!soft || !log || !unsplit) return !soft ? soft.status() : !log ? log.status() : unsplit.status();
  RT_RETURN_IF_ERROR(expect_within_ulps(outputs[kSoftmax], *soft, static_cast<uint32_t>(2 * length),
                                        "softmax over a split axis"));
  RT_RETURN_IF_ERROR(expect_within(outputs[kLogSoftmax], *log, static_cast<float>(2 * length + 8) / 16777216.0f,
                                   "log_softmax over a split axis"));
  return expect_same_bits(outputs[kSoftmaxUnsplit], *unsplit, "softmax over an unsplit axis");
}

}  // namespace

Status run_spmd_reduce_cases(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  Result<Inputs> in = make_inputs(cores);
  if (!in) return in.status();
  const rt::tpu::Computation computation{"spmd_reductions", tour, {kNumArgs}};
  RT_RETURN_IF_ERROR(replicate_over_whole_board(cores, computation, ReplicaArgs(in->args, kNumArgs)));
  const ReplicaOutputs& outputs = result()[0];
  if (outputs.size() != kNumOutputs) return rt::internal_error("{} outputs, expected {}", outputs.size(), kNumOutputs);
  RT_RETURN_IF_ERROR(check_reductions(outputs, *in));
  RT_RETURN_IF_ERROR(check_softmaxes(outputs, *in));
  const Grid g = grid_of(cores);
  rt::log_info("model-parallel spmd reductions (sum, mean, prod, max, min over split and unsplit axes) and softmax / "
               "log_softmax over a split axis, grid [{}, {}] of {} logical devices: ok",
               g.rows, g.columns, cores);
  return Status::ok();
}

}  // namespace model_parallel_test
