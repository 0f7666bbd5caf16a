// The strategy's replica context: in-replica all_reduce and broadcast, merge_call, the current context.
#include "runtime/tpu/strategy/strategy_replica_context.hpp"

#include "hal/core.hpp"
#include "runtime/ops/arena_ops.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/tpu/strategy/strategy.hpp"
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

namespace {

// The values of `dtype` (MEAN already scaled) copied one after another into one flat tensor.
Result<Tensor> pack(Arena& arena, DType dtype, Span<const Tensor> values, int64_t elements) {
  const int64_t dims[] = {elements};
  const Tensor packed = RT_TRY(arena.allocate_tensor(dtype, RT_TRY(Shape::make(dims)), "the packed all_reduce values"));
  int64_t offset = 0;
  for (const Tensor& value : values) {
    if (value.dtype != dtype) continue;
    const int64_t count = value.shape.num_elements();
    const Tensor place = Tensor::contiguous(dtype, value.shape, packed.data + offset * static_cast<int64_t>(packed.element_size()));
    RT_RETURN_IF_ERROR(copy(value, place));
    offset += count;
  }
  return packed;
}

}  // namespace

// One group of at most kMaxAllReduceValues values: one collective per dtype.
Status StrategyReplicaContext::all_reduce_group(ReduceOp op, Span<const Tensor* const> values,
                                                Span<Tensor* const> results) {
  Tensor scaled[kMaxAllReduceValues];
  for (size_t i = 0; i < values.size(); ++i) {
    const Tensor& value = *values[i];
    if (op == ReduceOp::kMean && !is_float(value.dtype))
      return invalid_argument("all_reduce: ReduceOp.MEAN scales the value by 1 / num_replicas_in_sync before summing, "
                              "which needs a floating-point value; got {} (value {})",
                              dtype_name(value.dtype), i);
    scaled[i] = op == ReduceOp::kMean ? RT_TRY(scale_by_reciprocal(value, num_replicas_in_sync(), arena())) : value;
  }
  bool done[kMaxAllReduceValues] = {};
  for (size_t first = 0; first < values.size(); ++first) {
    if (done[first]) continue;
    const DType dtype = scaled[first].dtype;
    int64_t elements = 0;
    for (size_t i = first; i < values.size(); ++i)
      if (scaled[i].dtype == dtype) elements += scaled[i].shape.num_elements();
    const Tensor total = RT_TRY(pack(arena(), dtype, Span<const Tensor>(scaled, values.size()), elements));
    RT_RETURN_IF_ERROR(replica_.all_reduce_in_place(ReduceOp::kSum, total));  // the packed copy is ours
    int64_t offset = 0;
    for (size_t i = first; i < values.size(); ++i) {
      if (scaled[i].dtype != dtype) continue;
      *results[i] = Tensor::contiguous(dtype, values[i]->shape,
                                       total.data + offset * static_cast<int64_t>(total.element_size()));
      offset += scaled[i].shape.num_elements();
      done[i] = true;
    }
  }
  return Status::ok();
}

Status StrategyReplicaContext::all_reduce_leaves(ReduceOp op, Span<const Tensor* const> values,
                                                 Span<Tensor* const> results) {
  RT_RETURN_IF_ERROR(check_tpu_reduce_op(op));
  if (results.size() != values.size())
    return invalid_argument("all_reduce: {} values but room for {} results", values.size(), results.size());
  for (size_t first = 0; first < values.size(); first += kMaxAllReduceValues) {
    const size_t count = min(values.size() - first, kMaxAllReduceValues);
    RT_RETURN_IF_ERROR(all_reduce_group(op, values.subspan(first, count), results.subspan(first, count)));
  }
  return Status::ok();
}

Status StrategyReplicaContext::all_reduce(ReduceOp op, Span<const Tensor> values, Span<Tensor> results) {
  if (results.size() != values.size())
    return invalid_argument("all_reduce: {} values but room for {} results", values.size(), results.size());
  RT_RETURN_IF_ERROR(check_tpu_reduce_op(op));
  for (size_t first = 0; first < values.size(); first += kMaxAllReduceValues) {
    const size_t count = min(values.size() - first, kMaxAllReduceValues);
    const Tensor* value_addresses[kMaxAllReduceValues];
    Tensor* result_addresses[kMaxAllReduceValues];
    for (size_t i = 0; i < count; ++i) {
      value_addresses[i] = &values[first + i];
      result_addresses[i] = &results[first + i];
    }
    RT_RETURN_IF_ERROR(all_reduce_group(op, Span<const Tensor* const>(value_addresses, count),
                                        Span<Tensor* const>(result_addresses, count)));
  }
  return Status::ok();
}

Result<Tensor> StrategyReplicaContext::all_reduce(StringView op, const Tensor& value) {
  Result<ReduceOp> parsed = reduce_op_from_name(op);
  if (!parsed) return parsed.status();
  return all_reduce(*parsed, value);
}

Result<Tensor> StrategyReplicaContext::broadcast(const Tensor& value) { return replica_.broadcast(value, 0); }

Result<Tensor> StrategyReplicaContext::all_gather(const Tensor& value, int64_t axis) {
  if (value.shape.rank == 0) return replica_.all_gather(value);  // [N]
  RT_RETURN_IF_ERROR(concat_shape(Span<const Tensor>(&value, 1), axis).status());  // ConcatOp's range text
  const unsigned dim = static_cast<unsigned>(axis < 0 ? axis + value.shape.rank : axis);
  const Tensor gathered = RT_TRY(replica_.all_gather(value));  // the values along dimension 0, replica order
  if (dim == 0) return gathered;
  Tensor blocks[kMaxReplicas];
  const unsigned replicas = num_replicas_in_sync();
  const int64_t rows = value.shape.dims[0];
  for (unsigned r = 0; r < replicas; ++r) blocks[r] = RT_TRY(gathered.slice(0, r * rows, (r + 1) * rows));
  return concat(arena(), Span<const Tensor>(blocks, replicas), dim);
}

WorkerDevices StrategyReplicaContext::devices() const {
  const WorkerDevices all = strategy().worker_devices();
  WorkerDevices mine;
  mine.names[0] = all.names[replica_id_in_sync_group()];
  mine.count = 1;
  return mine;
}

MergeOutputs& merge_outputs_of_core() {
  static MergeOutputs outputs[hal::kMaxCores];  // too large for a core's stack
  return outputs[hal::core_id()];
}

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
