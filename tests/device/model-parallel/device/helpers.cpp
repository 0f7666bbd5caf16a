// Test tensors, checks and device assignments for the model-parallel app.
#include <string.h>

#include "firmware/splitmix.hpp"
#include "runtime/mxu/core_mxu.hpp"
#include "runtime/tensor/hbm.hpp"
#include "suite.hpp"

namespace model_parallel_test {
namespace {

rt::tpu::ReplicateResult the_result;

rt::Result<rt::Tensor> allocate(rt::Arena& arena, rt::DType dtype, rt::Span<const int64_t> dims) {
  rt::Result<rt::Shape> shape = rt::Shape::make(dims);
  if (!shape) return shape.status();
  return arena.allocate_tensor(dtype, *shape, "a test tensor");
}

}  // namespace

rt::tpu::ReplicateResult& result() { return the_result; }

rt::Result<rt::Tensor> reference_matmul(const rt::Tensor& a, const rt::Tensor& b) {
  rt::Shape shape = a.shape;
  shape.dims[1] = shape.real[1] = b.shape.dims[1];
  rt::Result<rt::Tensor> c =
      rt::hbm().allocate_tensor(a.dtype == rt::DType::kI8 ? rt::DType::kI32 : rt::DType::kF32, shape, "reference");
  if (!c) return c;
  RT_RETURN_IF_ERROR(rt::matmul(rt::core_mxu(), a, b, *c));
  return c;
}

rt::Status replicate_over_whole_board(unsigned cores, const rt::tpu::Computation& computation,
                                      rt::Span<const rt::Tensor> args) {
  rt::Result<rt::tpu::DeviceAssignment> whole_board = assignment(cores, mesh_shape(cores).span(), 1);
  if (!whole_board) return whole_board.status();
  rt::tpu::ReplicateOptions options;
  options.device_assignment = &*whole_board;
  const rt::tpu::ReplicaArgs inputs[] = {args};
  return rt::tpu::replicate(computation, inputs, options, result());
}

rt::Status add_outputs(rt::tpu::ReplicaOutputs& outputs, rt::Span<const rt::Result<rt::Tensor>> values) {
  for (const rt::Result<rt::Tensor>& value : values) {
    if (!value) return value.status();
    RT_RETURN_IF_ERROR(outputs.add(*value));
  }
  return rt::Status::ok();
}

rt::Result<rt::Tensor> random_f32(rt::Arena& arena, rt::Span<const int64_t> dims, uint64_t seed) {
  rt::Result<rt::Tensor> tensor = allocate(arena, rt::DType::kF32, dims);
  if (!tensor) return tensor;
  float* values = reinterpret_cast<float*>(tensor->data);
  for (size_t i = 0; i < tensor->num_elements(); ++i) {
    const int32_t bits = static_cast<int32_t>(firmware::splitmix64(seed * 1000003 + i) >> 52);  // 0 .. 4095
    values[i] = static_cast<float>(bits - 2048) / 2048.0f;
  }
  return tensor;
}

rt::Result<rt::Tensor> small_integers(rt::Arena& arena, rt::DType dtype, rt::Span<const int64_t> dims, uint64_t seed) {
  rt::Result<rt::Tensor> tensor = allocate(arena, dtype, dims);
  if (!tensor) return tensor;
  for (size_t i = 0; i < tensor->num_elements(); ++i) {
    const int value = static_cast<int>(firmware::splitmix64(seed * 1000003 + i) % 9) - 4;
    if (dtype == rt::DType::kI8) reinterpret_cast<int8_t*>(tensor->data)[i] = static_cast<int8_t>(value);
    else reinterpret_cast<float*>(tensor->data)[i] = static_cast<float>(value);
  }
  return tensor;
}

rt::Status expect_same_bits(const rt::Tensor& actual, const rt::Tensor& expected, const char* what) {
  if (actual.dtype != expected.dtype || !(actual.shape == expected.shape))
    return rt::internal_error("{}: got {} {}, expected {} {}", what, rt::dtype_name(actual.dtype), actual.shape.sizes(),
                              rt::dtype_name(expected.dtype), expected.shape.sizes());
  const size_t size = actual.element_size();
  for (size_t i = 0; i < actual.num_elements(); ++i)
    if (memcmp(actual.data + i * size, expected.data + i * size, size) != 0) {
      uint32_t got = 0, want = 0;
      memcpy(&got, actual.data + i * size, size < 4 ? size : 4);
      memcpy(&want, expected.data + i * size, size < 4 ? size : 4);
      return rt::internal_error("{}: element {} of {} differs: bits {:#x}, expected {:#x}", what, i,
                                actual.num_elements(), got, want);
    }
  return rt::Status::ok();
}

namespace {

// The float's position on the number line in units in the last place (monotonic, -0 == +0).
int64_t ordinal(float value) {
  int32_t bits = 0;
  memcpy(&bits, &value, 4);
  return bits < 0 ? -static_cast<int64_t>(bits & 0x7fffffff) : bits;
}

rt::Status check_floats(const rt::Tensor& actual, const rt::Tensor& expected, const char* what) {
  if (actual.dtype != rt::DType::kF32 || expected.dtype != rt::DType::kF32 || !(actual.shape == expected.shape))
    return rt::internal_error("{}: got {} {}, expected float32 {}", what, rt::dtype_name(actual.dtype),
                              actual.shape.sizes(), expected.shape.sizes());
  return rt::Status::ok();
}

}  // namespace

rt::Status expect_within_ulps(const rt::Tensor& actual, const rt::Tensor& expected, uint32_t max_ulps, const char* what) {
  RT_RETURN_IF_ERROR(check_floats(actual, expected, what));
  const float* a = reinterpret_cast<const float*>(actual.data);
  const float* e = reinterpret_cast<const float*>(expected.data);
  for (size_t i = 0; i < actual.num_elements(); ++i) {
    const int64_t distance = ordinal(a[i]) - ordinal(e[i]);
    if (distance > static_cast<int64_t>(max_ulps) || -distance > static_cast<int64_t>(max_ulps))
      return rt::internal_error("{}: element {} is {}, expected {} ({} ulps apart, at most {} allowed)", what, i, a[i],
                                e[i], distance, max_ulps);
  }
  return rt::Status::ok();
}

rt::Status expect_within(const rt::Tensor& actual, const rt::Tensor& expected, float tolerance, const char* what) {
  RT_RETURN_IF_ERROR(check_floats(actual, expected, what));
  const float* a = reinterpret_cast<const float*>(actual.data);
  const float* e = reinterpret_cast<const float*>(expected.data);
  for (size_t i = 0; i < actual.num_elements(); ++i) {
    const float scale = e[i] > 1.0f ? e[i] : e[i] < -1.0f ? -e[i] : 1.0f;
    const float difference = a[i] > e[i] ? a[i] - e[i] : e[i] - a[i];
    if (!(difference <= tolerance * scale))
      return rt::internal_error("{}: element {} is {}, expected {} (more than {} apart)", what, i, a[i], e[i],
                                tolerance * scale);
  }
  return rt::Status::ok();
}

rt::Status expect_error(const rt::Status& status, rt::StatusCode code, rt::StringView expected, const char* what) {
  if (status.is_ok()) return rt::internal_error("{}: succeeded, expected error \"{}\"", what, expected);
  if (status.code() != code || !(status.message() == expected))
    return rt::internal_error("{}: {} \"{}\", expected {} \"{}\"", what, rt::status_code_name(status.code()),
                              status.message(), rt::status_code_name(code), expected);
  return rt::Status::ok();
}

rt::Result<rt::tpu::DeviceAssignment> assignment(unsigned cores, rt::Span<const int32_t> computation_shape,
                                                 int num_replicas) {
  rt::Result<rt::tpu::Topology> topology = rt::tpu::Topology::for_cores(static_cast<int>(cores));
  if (!topology) return topology.status();
  return rt::tpu::DeviceAssignment::build(*topology, computation_shape, {}, num_replicas);
}

rt::tpu::MeshShape mesh_shape(unsigned cores) { return rt::tpu::Topology::default_mesh_shape(static_cast<int>(cores)); }

rt::Result<rt::tpu::ShardedTensor> split_2d(const rt::Tensor& t, int64_t rows, int64_t columns) {
  const int64_t partition[] = {rows, columns};
  return rt::tpu::split_to_logical_devices(t, partition);
}

rt::Result<rt::Tensor> gathered(const rt::Result<rt::tpu::ShardedTensor>& x) {
  if (!x) return x.status();
  return rt::tpu::gather_from_logical_devices(*x);
}

unsigned grid_rows(unsigned n) {
  unsigned rows = 1;
  for (unsigned d = 1; d * d <= n; ++d)
    if (n % d == 0) rows = d;
  return rows;
}

}  // namespace model_parallel_test
