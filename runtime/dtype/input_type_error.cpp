// TensorFlow's input dtype error (input_type_error.hpp).
#include "input_type_error.hpp"

namespace rt {

const char* tf_kernel_dtype_name(DType type) {
  switch (type) {
    case DType::kF32: return "float";
    case DType::kF64: return "double";
    case DType::kF16: return "half";
    case DType::kC64: return "complex64";
    default: return dtype_name(type);  // bfloat16, int8, int32, uint32, int64, bool: the same in both
  }
}

Status input_type_error(StringView op, unsigned input, DType expected, DType got) {
  return invalid_argument("cannot compute {} as input #{}(zero-based) was expected to be a {} tensor but is a {} tensor",
                          op, input, tf_kernel_dtype_name(expected), tf_kernel_dtype_name(got));
}

}  // namespace rt
