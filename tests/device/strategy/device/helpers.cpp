// Tensor builders and checks for the strategy test app.
#include <string.h>

#include "runtime/ops/elementwise.hpp"
#include "runtime/ops/reduce_axes.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

rt::tpu::RunOutputs the_outputs;

}  // namespace

rt::tpu::RunOutputs& outputs() { return the_outputs; }

Result<Tensor> f32_tensor(rt::Arena& arena, rt::Span<const int64_t> dims, rt::Span<const float> values) {
  Result<rt::Shape> shape = rt::Shape::make(dims);
  if (!shape) return shape.status();
  if (static_cast<size_t>(shape->num_elements()) != values.size())
    return rt::internal_error("test tensor of shape {} given {} values", dims, values.size());
  Result<Tensor> tensor = arena.allocate_tensor(rt::DType::kF32, *shape, "a test tensor");
  if (!tensor) return tensor;
  memcpy(tensor->data, values.data(), values.size() * sizeof(float));
  return tensor;
}

Result<Tensor> f32_scalar(rt::Arena& arena, float value) { return f32_tensor(arena, {}, {value}); }

float f32_at(const Tensor& tensor, size_t index) {
  int64_t position[rt::kMaxRank];
  for (unsigned d = tensor.shape.rank; d-- > 0;) {
    position[d] = static_cast<int64_t>(index % static_cast<size_t>(tensor.shape.dims[d]));
    index /= static_cast<size_t>(tensor.shape.dims[d]);
  }
  float value;
  memcpy(&value, tensor.at(rt::Span<const int64_t>(position, tensor.shape.rank)), sizeof(value));
  return value;
}

Result<Tensor> sum_rows(rt::Arena& arena, const Tensor& x) {
  const int axes[] = {0};
  Result<rt::Shape> shape = rt::reduced_shape(x.shape, axes, false);
  if (!shape) return shape.status();
  Result<Tensor> sum = arena.allocate_tensor(x.dtype, *shape, "reduce_sum(x, 0)");
  if (!sum) return sum;
  RT_RETURN_IF_ERROR(rt::reduce_axes(rt::ReduceAxesOp::kSum, x, axes, false, *sum));
  return sum;
}

Status expect_error(const Status& status, rt::StatusCode code, rt::StringView expected, const char* what) {
  if (status.is_ok()) return rt::internal_error("{}: succeeded, expected error \"{}\"", what, expected);
  if (status.code() != code || !(status.message() == expected))
    return rt::internal_error("{}: {} \"{}\", expected {} \"{}\"", what, rt::status_code_name(status.code()),
                              status.message(), rt::status_code_name(code), expected);
  return Status::ok();
}

Status expect_f32(const Tensor& tensor, rt::Span<const float> expected, const char* what) {
  if (tensor.dtype != rt::DType::kF32 || tensor.num_elements() != expected.size())
    return rt::internal_error("{}: a {} tensor of shape {}, expected {} float32 values", what,
                              rt::dtype_name(tensor.dtype), tensor.shape.sizes(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    if (f32_at(tensor, i) != expected[i])
      return rt::internal_error("{}: element {} is {}, expected {}", what, i, f32_at(tensor, i), expected[i]);
  return Status::ok();
}

Status expect_f32(const Tensor& tensor, std::initializer_list<float> expected, const char* what) {
  return expect_f32(tensor, rt::Span<const float>(expected.begin(), expected.size()), what);
}

Status expect_regrouped(const DistributedValue& value, unsigned replicas, const char* what) {
  const bool ok = replicas == 1 ? value.kind() == rt::tpu::ValueKind::kPlain
                                : value.kind() == rt::tpu::ValueKind::kPerReplica && value.num_components() == replicas;
  if (!ok)
    return rt::internal_error("{}: a {} value with {} components, expected {}", what,
                              rt::tpu::value_kind_name(value.kind()), value.num_components(),
                              replicas == 1 ? "a plain value" : "a PerReplica value");
  return Status::ok();
}

}  // namespace strategy_test
