// TF's optimizer update kernels (training_ops.hpp).
#include "training_ops.hpp"

#include "float_math.hpp"

namespace rt {
namespace {

// One pass: the product rounded to T first (the build never contracts it into an FMA).
template <class T>
void descend(T* var, T alpha, const T* delta, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    const T step = alpha * delta[i];
    var[i] = canonical_nan_if_nan(var[i] - step);
  }
}

}  // namespace

Status apply_gradient_descent(const Tensor& var, double alpha, const Tensor& delta) {
  if (!(var.shape == delta.shape))
    return invalid_argument("var and delta do not have the same shape{} {}", var.shape.sizes(), delta.shape.sizes());
  if (var.dtype != delta.dtype)
    return invalid_argument("apply_gradient_descent: var is {} and delta {}: they must share a dtype", dtype_name(var.dtype),
                            dtype_name(delta.dtype));
  if (!var.is_contiguous() || !delta.is_contiguous())
    return invalid_argument("apply_gradient_descent: var and delta must be contiguous ({} is a strided view: copy it first)",
                            var.is_contiguous() ? "delta" : "var");
  const int64_t count = var.shape.num_elements();
  switch (var.dtype) {
    case DType::kF32:
      descend(var.values<float>().data(), static_cast<float>(alpha), delta.values<float>().data(), count);
      return Status::ok();
    case DType::kF64:
      descend(var.values<double>().data(), alpha, delta.values<double>().data(), count);
      return Status::ok();
    default:
      return invalid_argument("apply_gradient_descent supports float32 and float64, not {}", dtype_name(var.dtype));
  }
}

}  // namespace rt
