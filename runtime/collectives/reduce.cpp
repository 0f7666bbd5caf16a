// Reduction kernels per accumulator type. Plain loops: the compiler vectorises them, and keeping
// one scalar definition is what makes every board produce the same bits.
#include "reduce.hpp"

#include "runtime/dtype/half.hpp"
#include "runtime/support/type_traits.hpp"
#include "runtime/support/unaligned.hpp"

namespace rt {
namespace {

// Element `index` of a buffer of T, at any alignment.
template <class T>
T load(const uint8_t* bytes, size_t index) {
  return load_unaligned<T>(bytes + index * sizeof(T));
}

template <class T>
void store(uint8_t* bytes, size_t index, T value) {
  store_unaligned<T>(bytes + index * sizeof(T), value);
}

// Elements as the accumulator sees them: 16-bit floats widen to float, others load as they are.
template <DType kType> struct Element;
template <> struct Element<DType::kF32> {
  using Accumulator = float;
  static float read(const uint8_t* bytes, size_t i) { return load<float>(bytes, i); }
};
template <> struct Element<DType::kBF16> {
  using Accumulator = float;
  static float read(const uint8_t* bytes, size_t i) { return to_float(BFloat16{load<uint16_t>(bytes, i)}); }
};
template <> struct Element<DType::kF16> {
  using Accumulator = float;
  static float read(const uint8_t* bytes, size_t i) { return to_float(Float16{load<uint16_t>(bytes, i)}); }
};
template <> struct Element<DType::kF64> {
  using Accumulator = double;
  static double read(const uint8_t* bytes, size_t i) { return load<double>(bytes, i); }
};
template <> struct Element<DType::kI32> {
  using Accumulator = int32_t;
  static int32_t read(const uint8_t* bytes, size_t i) { return load<int32_t>(bytes, i); }
};
template <> struct Element<DType::kU32> {
  using Accumulator = uint32_t;
  static uint32_t read(const uint8_t* bytes, size_t i) { return load<uint32_t>(bytes, i); }
};

template <ReduceOp kOp, class T>
T combine(T a, T b) {
  if constexpr (kOp == ReduceOp::kMax) return (a > b || a != a) ? a : b;  // NaN propagates
  else if constexpr (kOp == ReduceOp::kMin) return (a < b || a != a) ? a : b;
  else if constexpr (is_same_v<T, int32_t>)  // two's complement wrap, without signed overflow
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  else return a + b;
}

template <DType kType>
void init_loop(const uint8_t* __restrict elements, void* accumulator, size_t first, size_t count) {
  using Accumulator = typename Element<kType>::Accumulator;
  Accumulator* __restrict acc = static_cast<Accumulator*>(accumulator) + first;
  for (size_t i = 0; i < count; ++i) acc[i] = Element<kType>::read(elements, i);
}

template <DType kType, ReduceOp kOp>
void combine_loop(const uint8_t* __restrict elements, void* accumulator, size_t first, size_t count) {
  using Accumulator = typename Element<kType>::Accumulator;
  Accumulator* __restrict acc = static_cast<Accumulator*>(accumulator) + first;
  for (size_t i = 0; i < count; ++i) acc[i] = combine<kOp>(acc[i], Element<kType>::read(elements, i));
}

template <DType kType>
void combine_by_op(ReduceOp op, const uint8_t* elements, void* accumulator, size_t first, size_t count) {
  switch (op) {
    case ReduceOp::kSum: case ReduceOp::kMean: return combine_loop<kType, ReduceOp::kSum>(elements, accumulator, first, count);
    case ReduceOp::kMax: return combine_loop<kType, ReduceOp::kMax>(elements, accumulator, first, count);
    case ReduceOp::kMin: return combine_loop<kType, ReduceOp::kMin>(elements, accumulator, first, count);
  }
}

template <DType kType>
void finish_loop(bool mean, const void* accumulator, uint8_t* __restrict out, size_t count, unsigned contributions) {
  using Accumulator = typename Element<kType>::Accumulator;
  const Accumulator* __restrict acc = static_cast<const Accumulator*>(accumulator);
  for (size_t i = 0; i < count; ++i) {
    Accumulator value = acc[i];
    if (mean) value = static_cast<Accumulator>(value / static_cast<Accumulator>(contributions));
    if constexpr (kType == DType::kBF16) store<uint16_t>(out, i, to_bfloat16(value).bits);
    else if constexpr (kType == DType::kF16) store<uint16_t>(out, i, to_float16(value).bits);
    else store<Accumulator>(out, i, value);
  }
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
  switch (type) {
    case DType::kBF16: return init_loop<DType::kBF16>(elements, accumulator, first, count);
    case DType::kF16: return init_loop<DType::kF16>(elements, accumulator, first, count);
    default:  // the accumulator holds these types as they are
      __builtin_memcpy(static_cast<uint8_t*>(accumulator) + first * accumulator_size(type), elements,
                       count * accumulator_size(type));
  }
}

void reduce_combine(ReduceOp op, DType type, const uint8_t* elements, void* accumulator, size_t first, size_t count) {
  switch (type) {
    case DType::kF32: return combine_by_op<DType::kF32>(op, elements, accumulator, first, count);
    case DType::kBF16: return combine_by_op<DType::kBF16>(op, elements, accumulator, first, count);
    case DType::kF16: return combine_by_op<DType::kF16>(op, elements, accumulator, first, count);
    case DType::kF64: return combine_by_op<DType::kF64>(op, elements, accumulator, first, count);
    case DType::kI32: return combine_by_op<DType::kI32>(op, elements, accumulator, first, count);
    case DType::kU32: return combine_by_op<DType::kU32>(op, elements, accumulator, first, count);
    default: return;  // rejected by reducible() before any data moves
  }
}

void reduce_finish(ReduceOp op, DType type, const void* accumulator, uint8_t* out, size_t count, unsigned contributions) {
  const bool mean = op == ReduceOp::kMean;
  switch (type) {
    case DType::kF32: return finish_loop<DType::kF32>(mean, accumulator, out, count, contributions);
    case DType::kBF16: return finish_loop<DType::kBF16>(mean, accumulator, out, count, contributions);
    case DType::kF16: return finish_loop<DType::kF16>(mean, accumulator, out, count, contributions);
    case DType::kF64: return finish_loop<DType::kF64>(mean, accumulator, out, count, contributions);
    case DType::kI32: return finish_loop<DType::kI32>(mean, accumulator, out, count, contributions);
    case DType::kU32: return finish_loop<DType::kU32>(mean, accumulator, out, count, contributions);
    default: return;
  }
}

void reduce_many(ReduceOp op, DType type, const uint8_t* const* inputs, unsigned n, uint8_t* const* outputs,
                 unsigned output_count, size_t count) {
  constexpr size_t kBlock = 1024;  // 8 KiB of accumulator at most: stays in L1
  alignas(64) uint8_t accumulator[kBlock * 8];
  const size_t element = dtype_size(type);
  for (size_t begin = 0; begin < count; begin += kBlock) {
    const size_t length = count - begin < kBlock ? count - begin : kBlock;
    const size_t at = begin * element;
    reduce_init(type, inputs[0] + at, accumulator, 0, length);
    for (unsigned j = 1; j < n; ++j) reduce_combine(op, type, inputs[j] + at, accumulator, 0, length);
    reduce_finish(op, type, accumulator, outputs[0] + at, length, n);
    for (unsigned k = 1; k < output_count; ++k) __builtin_memcpy(outputs[k] + at, outputs[0] + at, length * element);
  }
}

}  // namespace rt
