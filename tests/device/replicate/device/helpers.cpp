// Tensor builders and checks for the replicate test app.
#include <string.h>

#include "suite.hpp"

namespace replicate_test {
namespace {

rt::tpu::ReplicateResult the_result;

rt::Result<rt::Tensor> make_tensor(rt::Arena& arena, rt::DType dtype, rt::Span<const int64_t> dims, const void* values,
                                   size_t count) {
  rt::Result<rt::Shape> shape = rt::Shape::make(dims);
  if (!shape) return shape.status();
  if (static_cast<size_t>(shape->num_elements()) != count)
    return rt::internal_error("test tensor of shape {} given {} values", dims, count);
  rt::Result<rt::Tensor> tensor = arena.allocate_tensor(dtype, *shape, "a test tensor");
  if (!tensor) return tensor;
  memcpy(tensor->data, values, count * rt::dtype_size(dtype));
  return tensor;
}

}  // namespace

rt::tpu::ReplicateResult& result() { return the_result; }

rt::Result<rt::Tensor> f32_tensor(rt::Arena& arena, rt::Span<const int64_t> dims, rt::Span<const float> values) {
  return make_tensor(arena, rt::DType::kF32, dims, values.data(), values.size());
}

rt::Result<rt::Tensor> i32_tensor(rt::Arena& arena, rt::Span<const int64_t> dims, rt::Span<const int32_t> values) {
  return make_tensor(arena, rt::DType::kI32, dims, values.data(), values.size());
}

float f32_at(const rt::Tensor& tensor, size_t index) {
  float value;
  memcpy(&value, tensor.data + index * sizeof(float), sizeof(float));
  return value;
}

int32_t i32_at(const rt::Tensor& tensor, size_t index) {
  int32_t value;
  memcpy(&value, tensor.data + index * sizeof(int32_t), sizeof(int32_t));
  return value;
}

rt::Status expect_error(const rt::Status& status, rt::StatusCode code, rt::StringView expected, const char* what) {
  if (status.is_ok()) return rt::internal_error("{}: succeeded, expected error \"{}\"", what, expected);
  if (status.code() != code || !(status.message() == expected))
    return rt::internal_error("{}: {} \"{}\", expected {} \"{}\"", what, rt::status_code_name(status.code()),
                              status.message(), rt::status_code_name(code), expected);
  return rt::Status::ok();
}

rt::Status expect_output_counts(const rt::tpu::ReplicateResult& result, unsigned replicas, unsigned count,
                                const char* what) {
  if (result.num_replicas != replicas)
    return rt::internal_error("{}: {} replicas in the result, expected {}", what, result.num_replicas, replicas);
  for (unsigned r = 0; r < replicas; ++r)
    if (result[r].size() != count)
      return rt::internal_error("{}: replica {} returned {} values, expected {}", what, r, result[r].size(), count);
  return rt::Status::ok();
}

}  // namespace replicate_test
