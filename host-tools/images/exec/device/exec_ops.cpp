// The exec app's ops (exec_ops.hpp), one computation per op, named after it: matmul and conv2d on
// the replica's MXU, the collectives through ReplicaContext, and replicate's dynamic padding as an
// identity computation.
#include "exec_ops.hpp"

#include "firmware/tpu_pod.hpp"
#include "runtime/trace/trace_point.hpp"

namespace exec_app {
namespace {

using namespace rt;
using namespace rt::tpu;

DType accumulator_type(DType input) { return input == DType::kI8 ? DType::kI32 : DType::kF32; }

unsigned inputs_of(ExecOp op) { return op == ExecOp::kMatmul || op == ExecOp::kConv2d ? 2 : 1; }

// replicate(computation, inputs) under the op's name (the name timeouts report).
template <class F>
Result<Replicated> replicate_as(ExecOp op, const F& computation, Span<const ReplicaArgs> inputs,
                                const ReplicateOptions& options) {
  return replicate(computation_of(exec_op_name(op), computation), inputs, options);
}

Result<Replicated> replicate_op(const ExecSpec& spec, Span<const ReplicaArgs> inputs, const ReplicateOptions& options) {
  switch (spec.op) {
    case ExecOp::kMatmul: {
      auto matmul = [](ReplicaContext& replica, const Tensor& a, const Tensor& b) -> Result<Tensor> {
        if (a.shape.rank != 2 || b.shape.rank != 2)
          return invalid_argument("matmul takes two matrices, got ranks {} and {}", a.shape.rank, b.shape.rank);
        return rt::matmul(replica.arena(), a, b);
      };
      return replicate_as(spec.op, matmul, inputs, options);
    }
    case ExecOp::kConv2d: {
      auto conv2d = [conv = spec.conv](ReplicaContext& replica, const Tensor& input,
                                       const Tensor& filter) -> Result<Tensor> {
        RT_TRACE_SCOPE("conv2d", trace::Category::kCompute);
        const Shape shape = RT_TRY(conv2d_output_shape(input.shape, filter.shape, conv));
        const Tensor out =
            RT_TRY(replica.arena().allocate_tensor(accumulator_type(input.dtype), shape, "the conv2d output"));
        RT_RETURN_IF_ERROR(rt::conv2d(core_mxu(), replica.arena(), input, filter, conv, out));
        return out;
      };
      return replicate_as(spec.op, conv2d, inputs, options);
    }
    case ExecOp::kCrossReplicaSum: {
      auto cross_replica_sum = [](ReplicaContext& replica, const Tensor& x) { return replica.cross_replica_sum(x); };
      return replicate_as(spec.op, cross_replica_sum, inputs, options);
    }
    case ExecOp::kAllReduce: {
      auto all_reduce = [reduce = spec.reduce](ReplicaContext& replica, const Tensor& x) {
        return replica.all_reduce(reduce, x);
      };
      return replicate_as(spec.op, all_reduce, inputs, options);
    }
    case ExecOp::kAllGather: {
      auto all_gather = [](ReplicaContext& replica, const Tensor& x) { return replica.all_gather(x); };
      return replicate_as(spec.op, all_gather, inputs, options);
    }
    case ExecOp::kAllToAll: {
      auto all_to_all = [concat = spec.concat_dimension, split = spec.split_dimension, count = spec.split_count](
                            ReplicaContext& replica, const Tensor& x) {
        return replica.all_to_all(x, concat, split, count != 0 ? count : replica.num_replicas());
      };
      return replicate_as(spec.op, all_to_all, inputs, options);
    }
    case ExecOp::kCollectivePermute: {
      auto collective_permute = [pairs = Span<const int64_t>(spec.pairs, spec.pair_values)](ReplicaContext& replica,
                                                                                           const Tensor& x) {
        return replica.collective_permute(x, pairs);
      };
      return replicate_as(spec.op, collective_permute, inputs, options);
    }
    case ExecOp::kReplicatePadded: {
      auto padded_input = [](const Tensor& x) { return x; };  // the input, padded if max_shape asked for it
      return replicate_as(spec.op, padded_input, inputs, options);
    }
  }
  return internal_error("exec: op {} has no implementation", static_cast<unsigned>(spec.op));
}

}  // namespace

Result<Replicated> run_exec_op(const ExecSpec& spec, Span<const ReplicaArgs> inputs) {
  // Each op's computation takes its own number of tensors: a spec giving it another count is refused.
  if (spec.inputs != inputs_of(spec.op))
    return invalid_argument("{} takes {} input(s) per replica, got {}", exec_op_name(spec.op), inputs_of(spec.op),
                            spec.inputs);
  ReplicateOptions options;
  MaximumShape maximum;
  if (spec.op == ExecOp::kReplicatePadded && spec.has_max_shape) {
    maximum = MaximumShape::of(Span<const int64_t>(spec.max_shape, spec.max_shape_rank));
    options.maximum_shapes = Span<const MaximumShape>(&maximum, 1);
    options.padding_spec = spec.pad_power_of_two ? PaddingSpec::kPowerOfTwo : PaddingSpec::kAuto;
  }
  return replicate_op(spec, inputs, options);
}

}  // namespace exec_app
