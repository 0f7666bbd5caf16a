// Reference reduction: the textbook left fold x0 op x1 op ... in the accumulator type TF's
// semantics give (float for 16-bit floats, wrapping 32-bit integers), then one final rounding.
#include "reference.hpp"

#include <string.h>

#include "runtime/dtype/half.hpp"
#include "suite.hpp"

namespace collectives_test {
namespace {

template <class T>
T fold(rt::ReduceOp op, T a, T b) {
  if (op == rt::ReduceOp::kMax) return (a != a || a > b) ? a : b;
  if (op == rt::ReduceOp::kMin) return (a != a || a < b) ? a : b;
  return a + b;
}

float as_float(rt::DType type, const uint8_t* bytes) {
  uint16_t half;
  float value;
  if (type == rt::DType::kF32) { memcpy(&value, bytes, 4); return value; }
  memcpy(&half, bytes, 2);
  return type == rt::DType::kBF16 ? rt::to_float(rt::BFloat16{half}) : rt::to_float(rt::Float16{half});
}

}  // namespace

void expected_reduction(rt::ReduceOp op, rt::DType type, uint64_t case_seed, const uint32_t* members, unsigned size,
                        size_t input_index, uint8_t* out) {
  uint8_t element[8];
  const bool mean = op == rt::ReduceOp::kMean;
  if (type == rt::DType::kF64) {
    double acc = 0;
    for (unsigned j = 0; j < size; ++j) {
      input_element(type, case_seed, members[j], input_index, element);
      double v;
      memcpy(&v, element, 8);
      acc = j == 0 ? v : fold(op, acc, v);
    }
    if (mean) acc /= size;
    memcpy(out, &acc, 8);
  } else if (type == rt::DType::kI32 || type == rt::DType::kU32) {
    int64_t signed_acc = 0;
    uint32_t unsigned_acc = 0;
    for (unsigned j = 0; j < size; ++j) {
      input_element(type, case_seed, members[j], input_index, element);
      uint32_t v;
      memcpy(&v, element, 4);
      const int32_t s = static_cast<int32_t>(v);
      if (op == rt::ReduceOp::kSum || op == rt::ReduceOp::kMean) {
        unsigned_acc += v;  // wraps modulo 2^32 like the device
      } else if (type == rt::DType::kI32) {
        signed_acc = j == 0 ? s : (op == rt::ReduceOp::kMax ? (s > signed_acc ? s : signed_acc) : (s < signed_acc ? s : signed_acc));
        unsigned_acc = static_cast<uint32_t>(signed_acc);
      } else {
        unsigned_acc = j == 0 ? v : (op == rt::ReduceOp::kMax ? (v > unsigned_acc ? v : unsigned_acc) : (v < unsigned_acc ? v : unsigned_acc));
      }
    }
    if (mean && type == rt::DType::kI32) unsigned_acc = static_cast<uint32_t>(static_cast<int32_t>(unsigned_acc) / static_cast<int32_t>(size));
    if (mean && type == rt::DType::kU32) unsigned_acc /= size;
    memcpy(out, &unsigned_acc, 4);
  } else {
    float acc = 0;
    for (unsigned j = 0; j < size; ++j) {
      input_element(type, case_seed, members[j], input_index, element);
      const float v = as_float(type, element);
      acc = j == 0 ? v : fold(op, acc, v);
    }
    if (mean) acc /= static_cast<float>(size);
    if (type == rt::DType::kF32) { memcpy(out, &acc, 4); return; }
    const uint16_t bits = type == rt::DType::kBF16 ? rt::to_bfloat16(acc).bits : rt::to_float16(acc).bits;
    memcpy(out, &bits, 2);
  }
}

}  // namespace collectives_test
