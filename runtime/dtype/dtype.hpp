// Element types of tensors and collectives, with their sizes and TensorFlow names.
#pragma once
#include "hal/support/types.hpp"

namespace rt {

enum class DType : uint8_t { kF32, kF64, kBF16, kF16, kI8, kI32, kU32, kI64, kBool, kC64 };

inline constexpr size_t dtype_size(DType type) {
  switch (type) {
    case DType::kF32: case DType::kI32: case DType::kU32: return 4;
    case DType::kF64: case DType::kI64: case DType::kC64: return 8;
    case DType::kBF16: case DType::kF16: return 2;
    case DType::kI8: case DType::kBool: return 1;
  }
  return 0;
}

// TensorFlow's dtype names: "float32", "bfloat16", "int32", ...
const char* dtype_name(DType type);

// The one NaN every float result that is NaN becomes (positive, quiet, no payload): x86 and Arm
// propagate NaN payloads (and x86's default NaN is negative) while RISC-V canonicalises, so ops
// and the MXU rewrite NaN results to these bits to stay the same on every board.
inline constexpr uint32_t kCanonicalNanF32 = 0x7fc00000u;
inline constexpr uint64_t kCanonicalNanF64 = 0x7ff8000000000000ull;

}  // namespace rt
