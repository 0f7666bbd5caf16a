// Reduction kernels per accumulator type. Plain loops: the compiler vectorises them, and keeping
// one scalar definition is what makes every board produce the same bits.
#include "reduce.hpp"

#include <string.h>

#include "runtime/dtype/half.hpp"

namespace rt {
namespace {

template <class T>
T load(const uint8_t* bytes, size_t index) {
  T value;
  memcpy(&value, bytes + index * sizeof(T), sizeof(T));
  return value;
}

template <class T>
void store(uint8_t* bytes, size_t index, T value) {
  memcpy(bytes + index * sizeof(T), &value, sizeof(T));
}

float widen(DType type, const uint8_t* elements, size_t i) {
  switch (type) {
    case DType::kBF16: return to_float(BFloat16{load<uint16_t>(elements, i)});
    case DType::kF16: return to_float(Float16{load<uint16_t>(elements, i)});
    default: return load<float>(elements, i);
  }
}

template <class T>
T combine(ReduceOp op, T a, T b) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kMean: return a + b;
    case ReduceOp::kMax: return (a > b || a != a) ? a : b;
    case ReduceOp::kMin: return (a < b || a != a) ? a : b;
  }
  return a;
}

uint32_t combine_int(ReduceOp op, bool is_signed, uint32_t a, uint32_t b) {
  if (op == ReduceOp::kSum || op == ReduceOp::kMean) return a + b;  // wraps
  const bool a_larger = is_signed ? static_cast<int32_t>(a) > static_cast<int32_t>(b) : a > b;
  return (op == ReduceOp::kMax) == a_larger ? a : b;
}

}  // namespace

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kMean: return "mean";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kMin: return "min";
  }
  return "unknown";
}

bool reducible(DType type) {
  switch (type) {
    case DType::kF32: case DType::kF64: case DType::kBF16: case DType::kF16: case DType::kI32: case DType::kU32:
      return true;
    default:
      return false;
  }
}

size_t accumulator_size(DType type) { return type == DType::kF64 ? 8 : 4; }

void reduce_init(DType type, const uint8_t* elements, void* accumulator, size_t first, size_t count) {
  auto* acc = static_cast<uint8_t*>(accumulator);
  switch (type) {
    case DType::kF64: case DType::kI32: case DType::kU32: case DType::kF32:
      memcpy(acc + first * accumulator_size(type), elements, count * accumulator_size(type));
      return;
    default:
      for (size_t i = 0; i < count; ++i) store<float>(acc, first + i, widen(type, elements, i));
  }
}

void reduce_combine(ReduceOp op, DType type, const uint8_t* elements, void* accumulator, size_t first, size_t count) {
  auto* acc = static_cast<uint8_t*>(accumulator);
  switch (type) {
    case DType::kF64:
      for (size_t i = 0; i < count; ++i)
        store<double>(acc, first + i, combine(op, load<double>(acc, first + i), load<double>(elements, i)));
      return;
    case DType::kI32: case DType::kU32:
      for (size_t i = 0; i < count; ++i)
        store<uint32_t>(acc, first + i,
                        combine_int(op, type == DType::kI32, load<uint32_t>(acc, first + i), load<uint32_t>(elements, i)));
      return;
    default:
      for (size_t i = 0; i < count; ++i)
        store<float>(acc, first + i, combine(op, load<float>(acc, first + i), widen(type, elements, i)));
  }
}

void reduce_finish(ReduceOp op, DType type, const void* accumulator, uint8_t* out, size_t count, unsigned contributions) {
  const auto* acc = static_cast<const uint8_t*>(accumulator);
  const bool mean = op == ReduceOp::kMean;
  for (size_t i = 0; i < count; ++i) {
    switch (type) {
      case DType::kF64: {
        const double value = load<double>(acc, i);
        store<double>(out, i, mean ? value / contributions : value);
        break;
      }
      case DType::kI32: {
        const int32_t value = static_cast<int32_t>(load<uint32_t>(acc, i));
        store<int32_t>(out, i, mean ? static_cast<int32_t>(value / static_cast<int32_t>(contributions)) : value);
        break;
      }
      case DType::kU32: {
        const uint32_t value = load<uint32_t>(acc, i);
        store<uint32_t>(out, i, mean ? value / contributions : value);
        break;
      }
      default: {
        float value = load<float>(acc, i);
        if (mean) value /= static_cast<float>(contributions);
        if (type == DType::kBF16) store<uint16_t>(out, i, to_bfloat16(value).bits);
        else if (type == DType::kF16) store<uint16_t>(out, i, to_float16(value).bits);
        else store<float>(out, i, value);
      }
    }
  }
}

}  // namespace rt
