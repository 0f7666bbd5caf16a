// The strategy's replica context: in-replica all_reduce and broadcast, merge_call, the current context.
#include "runtime/tpu/strategy/strategy_replica_context.hpp"

#include "hal/core.hpp"
#include "runtime/tpu/strategy/strategy_reduce.hpp"

namespace rt::tpu {
namespace {

StrategyReplicaContext* current[hal::kMaxCores] = {};

bool is_float(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF64 || dtype == DType::kBF16 || dtype == DType::kF16;
}

}  // namespace

Result<Tensor> StrategyReplicaContext::all_reduce(ReduceOp op, const Tensor& value) {
  RT_RETURN_IF_ERROR(check_tpu_reduce_op(op));
  if (op == ReduceOp::kSum) return replica_.cross_replica_sum(value);
  if (!is_float(value.dtype))
    return invalid_argument("all_reduce: ReduceOp.MEAN scales the value by 1 / num_replicas_in_sync before summing, "
                            "which needs a floating-point value; got {}",
                            dtype_name(value.dtype));
  Result<Tensor> scaled = scale_by_reciprocal(value, num_replicas_in_sync(), arena());
  if (!scaled) return scaled;
  return replica_.cross_replica_sum(*scaled);
}

Result<Tensor> StrategyReplicaContext::all_reduce(StringView op, const Tensor& value) {
  Result<ReduceOp> parsed = reduce_op_from_name(op);
  if (!parsed) return parsed.status();
  return all_reduce(*parsed, value);
}

Result<Tensor> StrategyReplicaContext::broadcast(const Tensor& value) { return replica_.broadcast(value, 0); }

Status StrategyReplicaContext::merge_call(const MergeFn& merge_fn, Span<const Tensor> args, MergeOutputs& outputs) {
  return merge_.merge_call(merge_fn, args, outputs);
}

StrategyReplicaContext* current_strategy_replica_context() { return current[hal::core_id()]; }

StrategyContextScope::StrategyContextScope(StrategyReplicaContext* context) : previous_(current[hal::core_id()]) {
  current[hal::core_id()] = context;
}

StrategyContextScope::~StrategyContextScope() { current[hal::core_id()] = previous_; }

Status merge_call(const MergeFn& merge_fn, Span<const Tensor> args, MergeOutputs& outputs) {
  StrategyReplicaContext* context = current_strategy_replica_context();
  if (context == nullptr) return not_in_replica_context();
  return context->merge_call(merge_fn, args, outputs);
}

}  // namespace rt::tpu
