// TensorFlow names of the element types.
#include "dtype.hpp"

namespace rt {

const char* dtype_name(DType type) {
  switch (type) {
    case DType::kF32: return "float32";
    case DType::kF64: return "float64";
    case DType::kBF16: return "bfloat16";
    case DType::kF16: return "float16";
    case DType::kI8: return "int8";
    case DType::kI32: return "int32";
    case DType::kU32: return "uint32";
    case DType::kI64: return "int64";
    case DType::kBool: return "bool";
    case DType::kC64: return "complex64";
  }
  return "unknown";
}

}  // namespace rt
