// TPUStrategy.reduce arithmetic: add_n over components, MEAN scaling, axis sums and uneven-batch means.
#include "strategy_reduce.hpp"

#include "runtime/ops/cast.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/ops/elementwise.hpp"
#include "runtime/ops/reduce_axes.hpp"

namespace rt::tpu {
namespace {

using UpperName = FixedString<32>;

UpperName upper_case(StringView name) {
  UpperName upper;
  for (char c : name) upper.append(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
  return upper;
}

bool is_integer(DType dtype) { return dtype == DType::kI32 || dtype == DType::kU32; }

// The scalar at `bits` (of dtype `source`) cast to a new scalar of `dtype`.
Result<Tensor> constant_of(DType source, const void* bits, DType dtype, Arena& arena) {
  Result<Tensor> out = arena.allocate_tensor(dtype, Shape{}, "a reduce constant");
  if (!out) return out;
  const Tensor in = Tensor::contiguous(source, Shape{}, const_cast<void*>(bits));
  RT_RETURN_IF_ERROR(cast(in, *out));
  return out;
}

// TF's add_n: ((c0 + c1) + c2) ..., in a new contiguous tensor.
Result<Tensor> add_n(Span<const Tensor> components, Arena& arena) {
  RT_RETURN_IF_ERROR(check_same_component_shapes(
      components, "reduce", "without an axis every replica's value must have the same shape and dtype"));
  Result<Tensor> sum = arena.allocate_tensor(components[0].dtype, components[0].shape, "a reduce result");
  if (!sum) return sum;
  RT_RETURN_IF_ERROR(copy(components[0], *sum));
  for (unsigned r = 1; r < components.size(); ++r)
    RT_RETURN_IF_ERROR(binary(BinaryOp::kAdd, *sum, components[r], *sum));
  return sum;
}

Result<Tensor> reduce_sum_along(const Tensor& value, unsigned axis, Arena& arena) {
  const int axes[] = {static_cast<int>(axis)};
  Result<Shape> shape = reduced_shape(value.shape, axes, false);
  if (!shape) return shape.status();
  Result<Tensor> out = arena.allocate_tensor(value.dtype, *shape, "a reduce_sum result");
  if (!out) return out;
  RT_RETURN_IF_ERROR(reduce_axes(ReduceAxesOp::kSum, value, axes, false, *out));
  return out;
}

// numerator / count with TF's truediv: floats in their dtype, int32/uint32 in float64.
Result<Tensor> divide_by_count(const Tensor& numerator, int64_t count, Arena& arena) {
  const DType dtype = is_integer(numerator.dtype) ? DType::kF64 : numerator.dtype;
  Tensor numer = numerator;
  if (dtype != numerator.dtype) {
    Result<Tensor> widened = arena.allocate_tensor(dtype, numerator.shape, "a reduce mean numerator");
    if (!widened) return widened;
    RT_RETURN_IF_ERROR(cast(numerator, *widened));
    numer = *widened;
  }
  Result<Tensor> denom = constant_of(DType::kI64, &count, dtype, arena);
  if (!denom) return denom;
  Result<Tensor> out = arena.allocate_tensor(dtype, numerator.shape, "a reduce mean");
  if (!out) return out;
  RT_RETURN_IF_ERROR(binary(BinaryOp::kDiv, numer, *denom, *out));
  return out;
}

// The components an axis reduction sees: a plain value once per replica.
unsigned axis_components(const DistributedValue& value, unsigned num_replicas, Tensor* components) {
  if (value.is_distributed()) {
    for (unsigned r = 0; r < value.num_components(); ++r) components[r] = value.component(r);
    return value.num_components();
  }
  for (unsigned r = 0; r < num_replicas; ++r) components[r] = value.component(0);
  return num_replicas;
}

Result<Tensor> reduce_along_axis(ReduceOp op, const DistributedValue& value, int64_t axis, unsigned num_replicas,
                                 Arena& arena) {
  Tensor components[kMaxReplicas];
  const unsigned count = axis_components(value, num_replicas, components);
  Tensor sums[kMaxReplicas];
  int64_t total = 0;
  for (unsigned r = 0; r < count; ++r) {
    Result<unsigned> index = normalize_reduce_axis(axis, components[r].shape.rank);
    if (!index) return index.status();
    Result<Tensor> sum = reduce_sum_along(components[r], *index, arena);
    if (!sum) return sum;
    sums[r] = *sum;
    total += components[r].shape.dims[*index];
  }
  Result<Tensor> numerator = add_n(Span<const Tensor>(sums, count), arena);
  if (!numerator || op == ReduceOp::kSum) return numerator;
  return divide_by_count(*numerator, total, arena);
}

Result<Tensor> reduce_plain(ReduceOp op, const Tensor& value, unsigned num_replicas) {
  if (op == ReduceOp::kMean || num_replicas == 1) return value;
  return invalid_argument("A non-DistributedValues value Tensor(shape={}, dtype={}) cannot be reduced with the given "
                          "reduce op {}.",
                          value.shape.sizes(), dtype_name(value.dtype), reduce_op_repr(op));
}

}  // namespace

const char* reduce_op_repr(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "ReduceOp.SUM";
    case ReduceOp::kMean: return "ReduceOp.MEAN";
    case ReduceOp::kMax: return "ReduceOp.MAX";
    case ReduceOp::kMin: return "ReduceOp.MIN";
  }
  return "ReduceOp.UNKNOWN";
}

Result<ReduceOp> reduce_op_from_name(StringView name) {
  const UpperName upper = upper_case(name);
  if (upper.view() == StringView("SUM")) return ReduceOp::kSum;
  if (upper.view() == StringView("MEAN")) return ReduceOp::kMean;
  return invalid_argument("'{}' is not a valid ReduceOp", upper.view());
}

Status check_tpu_reduce_op(ReduceOp op) {
  if (op == ReduceOp::kSum || op == ReduceOp::kMean) return Status::ok();
  return Status::error(StatusCode::kUnimplemented,
                       "`reduce_op`={} is not supported. Currently we only support ReduceOp.SUM and ReduceOp.MEAN in "
                       "TPUStrategy.",
                       reduce_op_repr(op));
}

Result<unsigned> normalize_reduce_axis(int64_t axis, unsigned rank) {
  const int64_t index = axis < 0 ? axis + rank : axis;
  if (index < 0 || index >= static_cast<int64_t>(rank))
    return invalid_argument("`axis` = {} out of range for `value` with rank {}", axis, rank);
  return static_cast<unsigned>(index);
}

Result<Tensor> scale_by_reciprocal(const Tensor& value, unsigned count, Arena& arena) {
  const float reciprocal = static_cast<float>(1.0 / static_cast<double>(count));
  Result<Tensor> factor = constant_of(DType::kF32, &reciprocal, value.dtype, arena);
  if (!factor) return factor;
  Result<Tensor> out = arena.allocate_tensor(value.dtype, value.shape, "a scaled value");
  if (!out) return out;
  RT_RETURN_IF_ERROR(binary(BinaryOp::kMul, value, *factor, *out));
  return out;
}

Result<Tensor> cross_replica_reduce(ReduceOp op, const DistributedValue& value, ReduceAxis axis, unsigned num_replicas,
                                    Arena& arena) {
  RT_RETURN_IF_ERROR(check_tpu_reduce_op(op));
  if (axis.given) return reduce_along_axis(op, value, axis.value, num_replicas, arena);
  if (!value.is_distributed()) return reduce_plain(op, value.component(0), num_replicas);
  Result<Tensor> sum = add_n(value.local_results(), arena);
  if (!sum || op == ReduceOp::kSum) return sum;
  return scale_by_reciprocal(*sum, value.num_components(), arena);
}

}  // namespace rt::tpu
