// TF's optimizer update kernels (tf.raw_ops.ApplyGradientDescent and its kin): a variable updated in
// place from a gradient in one pass over both, as the step of a training loop does it.
//
// apply_gradient_descent(var, alpha, delta): var -= alpha * delta (GradientDescentOptimizer's
// apply_gradients), element by element. The product is rounded before the subtraction (two
// roundings, no fused multiply-add), so var ends with the bits that multiply() then subtract() give
// (and NumPy's `w -= lr * g` in the same dtype), without the product's temporary tensor. A NaN
// result is the canonical quiet NaN (elementwise.hpp). float32 and float64; var and delta of one
// dtype and shape (else TF's error, shapes written as this runtime writes them: "var and delta do
// not have the same shape[2, 3] [3]"), both contiguous (var is a variable, updated where it lies).
#pragma once
#include "runtime/tensor/tensor.hpp"

namespace rt {

Status apply_gradient_descent(const Tensor& var, double alpha, const Tensor& delta);

}  // namespace rt
