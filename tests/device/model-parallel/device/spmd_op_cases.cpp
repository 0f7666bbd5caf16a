// SPMD ops over the logical devices of one replica spanning the whole board (N = cores logical
// devices), each result gathered and checked bit for bit against the unsplit op on core 0:
//   matmul split on rows ([N, 1] x replicated), on columns (replicated x [1, N]) and on the
//   contracting dimension ([1, N] x [N, 1]: partial products + all_reduce over the logical devices),
//   float32 and int8 (small integers: every sum is exact, so the K split equals the unsplit matmul);
//   elementwise add of two tiles, a replicated bias broadcast into a tiled tensor, relu of a tensor
//   assigned to the last logical device (gathered by a broadcast from it);
//   intra-replica collectives: a collective_permute ring and an all_reduce over logical core ids.
#include "runtime/log/log.hpp"
#include "runtime/mxu/core_mxu.hpp"
#include "runtime/tensor/hbm.hpp"
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
namespace spmd = rt::tpu::spmd;

enum Arg { kRowsA, kRowsB, kColsA, kColsB, kInnerA, kInnerB, kInt8A, kInt8B, kX, kY, kBias, kNumArgs };
enum Output { kRows, kCols, kInner, kInt8Inner, kElementwise, kAssigned, kRing, kIdSum, kNumOutputs };

Result<Tensor> split_matmul(const Tensor& a, const Tensor& b, int64_t a_rows, int64_t a_cols, int64_t b_rows,
                            int64_t b_cols) {
  const unsigned n = rt::tpu::logical_devices().num_logical_cores();
  auto sharded = [&](const Tensor& t, int64_t rows, int64_t cols) -> Result<ShardedTensor> {
    if (rows == 1 && cols == 1 && n > 1) return rt::tpu::replicate_to_logical_devices(t);
    return split_2d(t, rows, cols);
  };
  Result<ShardedTensor> sa = sharded(a, a_rows, a_cols), sb = sharded(b, b_rows, b_cols);
  if (!sa || !sb) return !sa ? sa.status() : sb.status();
  return gathered(spmd::matmul(*sa, *sb));
}

Result<Tensor> elementwise(ReplicaArgs args, unsigned n) {
  Result<ShardedTensor> x = split_2d(args[kX], n, 1), y = split_2d(args[kY], n, 1);
  if (!x || !y) return !x ? x.status() : y.status();
  Result<ShardedTensor> sum = spmd::binary(rt::BinaryOp::kAdd, *x, *y);
  if (!sum) return sum.status();
  return gathered(spmd::binary(rt::BinaryOp::kMul, *sum, rt::tpu::replicate_to_logical_devices(args[kBias])));
}

Result<Tensor> assigned_relu(ReplicaArgs args, unsigned n) {
  Result<ShardedTensor> x = rt::tpu::assign_to_logical_device(args[kX], n - 1);
  if (!x) return x.status();
  return gathered(spmd::unary(rt::UnaryOp::kRelu, *x));
}

// Logical core l sends [l] to (l + 1) % n; gathered: [(l - 1) mod n for every l]. And sum of the ids.
Status intra_replica_collectives(ReplicaOutputs& outputs) {
  rt::tpu::LogicalDevices& devices = rt::tpu::logical_devices();
  const unsigned n = devices.num_logical_cores();
  const int64_t one[] = {1};
  Result<Tensor> id = devices.arena().allocate_tensor(rt::DType::kI32, *rt::Shape::make(one), "logical core id");
  if (!id) return id.status();
  *reinterpret_cast<int32_t*>(id->data) = static_cast<int32_t>(devices.logical_core());
  int64_t pairs[2 * rt::tpu::kMaxLogicalDevices];
  for (unsigned l = 0; l < n; ++l) pairs[2 * l] = l, pairs[2 * l + 1] = (l + 1) % n;
  Result<Tensor> shifted = devices.collective_permute(*id, rt::Span<const int64_t>(pairs, 2 * n));
  if (!shifted) return shifted.status();
  Result<Tensor> ring = devices.all_gather(*shifted);
  Result<Tensor> id_sum = devices.all_reduce(rt::ReduceOp::kSum, *id);
  if (!ring || !id_sum) return !ring ? ring.status() : id_sum.status();
  RT_RETURN_IF_ERROR(outputs.add(*ring));
  return outputs.add(*id_sum);
}

Status spmd_tour(ReplicaContext& replica, ReplicaArgs args, ReplicaOutputs& outputs) {
  const unsigned n = replica.num_logical_cores();
  const Result<Tensor> results[] = {
      split_matmul(args[kRowsA], args[kRowsB], n, 1, 1, 1),  split_matmul(args[kColsA], args[kColsB], 1, 1, 1, n),
      split_matmul(args[kInnerA], args[kInnerB], 1, n, n, 1), split_matmul(args[kInt8A], args[kInt8B], 1, n, n, 1),
      elementwise(args, n),                                   assigned_relu(args, n)};
  RT_RETURN_IF_ERROR(add_outputs(outputs, results));
  return intra_replica_collectives(outputs);
}

struct Inputs {
  Tensor args[kNumArgs];
};

Result<Inputs> make_inputs(unsigned n) {
  const int64_t m = 2 * n, k = 3 * n;
  const int64_t dims[kNumArgs][2] = {{m, 6}, {6, 5}, {4, 6}, {6, m}, {4, k}, {k, 5}, {4, k}, {k, 5}, {m, 4}, {m, 4}, {4, 0}};
  Inputs in;
  for (unsigned a = 0; a < kNumArgs; ++a) {
    const rt::DType dtype = a == kInt8A || a == kInt8B ? rt::DType::kI8 : rt::DType::kF32;
    const rt::Span<const int64_t> shape(dims[a], a == kBias ? 1 : 2);
    Result<Tensor> t = a >= kX ? random_f32(rt::hbm(), shape, 500 + a) : small_integers(rt::hbm(), dtype, shape, 400 + a);
    if (!t) return t.status();
    in.args[a] = *t;
  }
  return in;
}

Result<Tensor> reference_elementwise(const Inputs& in) {
  Result<Tensor> out = rt::hbm().allocate_tensor(rt::DType::kF32, in.args[kX].shape, "reference");
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::binary(rt::BinaryOp::kAdd, in.args[kX], in.args[kY], *out));
  RT_RETURN_IF_ERROR(rt::binary(rt::BinaryOp::kMul, *out, in.args[kBias], *out));
  return out;
}

Result<Tensor> reference_relu(const Tensor& x) {
  Result<Tensor> out = rt::hbm().allocate_tensor(rt::DType::kF32, x.shape, "reference");
  if (!out) return out;
  RT_RETURN_IF_ERROR(rt::unary(rt::UnaryOp::kRelu, x, *out));
  return out;
}

Status expect_collectives(const rt::tpu::ReplicaOutputs& outputs, unsigned n) {
  const int32_t* ring = reinterpret_cast<const int32_t*>(outputs[kRing].data);
  for (unsigned l = 0; l < n; ++l)
    if (ring[l] != static_cast<int32_t>((l + n - 1) % n))
      return rt::internal_error("collective_permute ring over logical devices: logical core {} got {}, expected {}", l,
                                ring[l], (l + n - 1) % n);
  const int32_t sum = *reinterpret_cast<const int32_t*>(outputs[kIdSum].data);
  if (sum != static_cast<int32_t>(n * (n - 1) / 2))
    return rt::internal_error("all_reduce of logical core ids: {}, expected {}", sum, n * (n - 1) / 2);
  return Status::ok();
}

Status check_outputs(const rt::tpu::ReplicaOutputs& outputs, const Inputs& in, unsigned n) {
  if (outputs.size() != kNumOutputs) return rt::internal_error("{} outputs, expected {}", outputs.size(), kNumOutputs);
  const Result<Tensor> expected[] = {
      reference_matmul(in.args[kRowsA], in.args[kRowsB]), reference_matmul(in.args[kColsA], in.args[kColsB]),
      reference_matmul(in.args[kInnerA], in.args[kInnerB]), reference_matmul(in.args[kInt8A], in.args[kInt8B]),
      reference_elementwise(in), reference_relu(in.args[kX])};
  const char* const names[] = {"matmul split on rows", "matmul split on columns",
                               "matmul split on the contracting dimension (all_reduce)",
                               "int8 matmul split on the contracting dimension", "tiled add, replicated bias multiply",
                               "relu on an assigned logical device"};
  for (unsigned k = 0; k < 6; ++k) {
    if (!expected[k]) return expected[k].status();
    RT_RETURN_IF_ERROR(expect_same_bits(outputs[k], *expected[k], names[k]));
  }
  return expect_collectives(outputs, n);
}

}  // namespace

Status run_spmd_op_cases(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  Result<Inputs> in = make_inputs(cores);
  if (!in) return in.status();
  const rt::tpu::Computation tour{"spmd_tour", spmd_tour, {kNumArgs}};
  RT_RETURN_IF_ERROR(replicate_over_whole_board(cores, tour, ReplicaArgs(in->args, kNumArgs)));
  RT_RETURN_IF_ERROR(check_outputs(result()[0], *in, cores));
  rt::log_info("model-parallel spmd ops: matmul (rows, columns, contracting + all_reduce; f32, int8), elementwise, "
               "assigned, intra-replica collectives over {} logical devices: ok",
               cores);
  return Status::ok();
}

}  // namespace model_parallel_test
