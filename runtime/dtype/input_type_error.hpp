// TensorFlow's error for an op whose inputs do not share the dtype the op computes in, as eager
// execution words it:
//   cannot compute AddV2 as input #1(zero-based) was expected to be a float tensor but is a int32 tensor
// The dtypes are named as TF's kernels name them (DataTypeString: float, double, half, bfloat16,
// int32, ...), not as Python's dtype objects print (float32): the message is TF's own.
#pragma once
#include "dtype.hpp"
#include "hal/support/status.hpp"

namespace rt {

// TF's kernel-side name of `type` ("float" for float32, "double" for float64, "half" for float16).
const char* tf_kernel_dtype_name(DType type);

// INVALID_ARGUMENT with the text above: `op` is TF's op name (AddV2, MatMul, ...), `input` the
// zero-based index of the first input whose dtype differs from `expected` (input 0's).
Status input_type_error(StringView op, unsigned input, DType expected, DType got);

}  // namespace rt
