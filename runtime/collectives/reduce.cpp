// Reduction kernels per accumulator type. One scalar definition of every operation (combine,
// finish_one); the loops and the vector kernels apply exactly it, element by element, which is
// what makes every board and every algorithm produce the same bits.
#include "reduce.hpp"

#include "hal/core.hpp"
#include "runtime/dtype/half.hpp"
#if defined(__AVX__)
#include <immintrin.h>
#endif
#include "hal/support/type_traits.hpp"
#include "hal/support/unaligned.hpp"

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

// The final step of one element: mean division, then rounding to the stored type.
template <DType kType, bool kMean>
void finish_one(typename Element<kType>::Accumulator value, uint8_t* out, size_t i, unsigned contributions) {
  using Accumulator = typename Element<kType>::Accumulator;
  if constexpr (kMean) value = static_cast<Accumulator>(value / static_cast<Accumulator>(contributions));
  if constexpr (kType == DType::kBF16) store<uint16_t>(out, i, to_bfloat16(value).bits);
  else if constexpr (kType == DType::kF16) store<uint16_t>(out, i, to_float16(value).bits);
  else store<Accumulator>(out, i, value);
}

// kMean is a template parameter so that the loop has no branch and vectorises.
template <DType kType, bool kMean>
void finish_loop(const void* accumulator, uint8_t* __restrict out, size_t count, unsigned contributions) {
  using Accumulator = typename Element<kType>::Accumulator;
  const Accumulator* __restrict acc = static_cast<const Accumulator*>(accumulator);
  for (size_t i = 0; i < count; ++i) finish_one<kType, kMean>(acc[i], out, i, contributions);
}

template <DType kType>
void finish_by_mean(bool mean, const void* accumulator, uint8_t* out, size_t count, unsigned contributions) {
  if (mean) finish_loop<kType, true>(accumulator, out, count, contributions);
  else finish_loop<kType, false>(accumulator, out, count, contributions);
}

// ---------------------------------------------------------------- reduce_many
// Two kernels, both computing exactly the scalar definition above element by element (the same
// operations on the same values in the same order; SIMD only runs several elements side by side,
// IEEE arithmetic rounds every lane like the scalar instruction, and nothing is contracted or
// reassociated), so their results are the bits of the sequential reference on every board.
constexpr unsigned kMaxOperands = kMaxReduceOperands;

// Direct kernel for element types that are their own accumulator (float32, float64, int32, uint32):
// one pass, reading every input and writing every output once per element, through GCC vector
// types (AVX on the host: 32 bytes; NEON: 16) or plain scalars on a target without SIMD (RV64GC,
// where GCC would only split vectors back into scalars, worse than it schedules plain ones).
// Elements are loaded and stored with unaligned accesses, so any buffer alignment works. Each group
// of vectors is loaded from every input before it is stored to any output, so an output may be the
// same memory as an input.
#if defined(__AVX__)
constexpr size_t kVectorBytes = 32;
#elif defined(__ARM_NEON) || defined(__SSE2__) || defined(__riscv_vector)
constexpr size_t kVectorBytes = 16;
#else
constexpr size_t kVectorBytes = 0;
#endif

#if defined(__AVX__) || defined(__ARM_NEON) || defined(__SSE2__) || defined(__riscv_vector)
template <class T> struct VectorOf;
template <> struct VectorOf<float> { typedef float type __attribute__((vector_size(kVectorBytes))); };
template <> struct VectorOf<double> { typedef double type __attribute__((vector_size(kVectorBytes))); };
template <> struct VectorOf<int32_t> { typedef int32_t type __attribute__((vector_size(kVectorBytes))); };
template <> struct VectorOf<uint32_t> { typedef uint32_t type __attribute__((vector_size(kVectorBytes))); };
#else
template <class T> struct VectorOf { using type = T; };  // one element per "vector"
#endif

template <class V>
V load_vector(const uint8_t* bytes) {
  V value;
  __builtin_memcpy(&value, bytes, sizeof(V));
  return value;
}

template <class V>
void store_vector(uint8_t* bytes, V value) {
  __builtin_memcpy(bytes, &value, sizeof(V));
}

// combine() on vectors, lane by lane.
template <ReduceOp kOp, class T, class V>
V combine_vector(V a, V b) {
  if constexpr (is_same_v<V, T>) {  // no SIMD: the scalar definition itself
    return combine<kOp>(a, b);
  } else if constexpr (kOp == ReduceOp::kMax || kOp == ReduceOp::kMin) {
    if constexpr (is_same_v<T, float> || is_same_v<T, double>) {
      const auto take_a = (kOp == ReduceOp::kMax ? a > b : a < b) | (a != a);  // NaN propagates
      return take_a ? a : b;
    } else {
      return (kOp == ReduceOp::kMax ? a > b : a < b) ? a : b;
    }
  } else if constexpr (is_same_v<T, int32_t>) {  // two's complement wrap, without signed overflow
    using Unsigned = typename VectorOf<uint32_t>::type;
    return reinterpret_cast<V>(reinterpret_cast<Unsigned>(a) + reinterpret_cast<Unsigned>(b));
  } else {
    return a + b;
  }
}

// Non-temporal (streaming) stores where the target has them: the outputs bypass the caches, which
// saves reading every output line before writing it (a third of the memory traffic of a reduction
// much larger than the caches). They need 32-byte aligned addresses and an sfence before the
// results are signalled to other cores.
#if defined(__AVX__)
constexpr bool kCanStream = true;
template <class V>
void stream_vector(uint8_t* bytes, V value) {
  _mm256_stream_si256(reinterpret_cast<__m256i*>(bytes), reinterpret_cast<__m256i>(value));
}
inline void stream_fence() { _mm_sfence(); }
#else
constexpr bool kCanStream = false;
template <class V>
void stream_vector(uint8_t* bytes, V value) { store_vector(bytes, value); }
inline void stream_fence() {}
#endif

// kInputs / kOutputs: the counts fixed at compile time (the common two-member case, fully
// unrolled), or 0 for any count.
template <DType kType, ReduceOp kOp, bool kMean, bool kStream, unsigned kInputs, unsigned kOutputs>
void reduce_direct_kernel(const uint8_t* const* input_list, unsigned input_count, uint8_t* const* output_list,
                          unsigned output_list_count, size_t count) {
  const unsigned n = kInputs != 0 ? kInputs : input_count;
  const unsigned output_count = kOutputs != 0 ? kOutputs : output_list_count;
  using T = typename Element<kType>::Accumulator;
  using V = typename VectorOf<T>::type;
  constexpr size_t kBytes = sizeof(V);
  constexpr size_t kLanes = kBytes / sizeof(T);
  constexpr unsigned kUnroll = 4;  // vectors in flight per input: enough loads to cover L2/L3 latency
  constexpr size_t kStep = kUnroll * kLanes;
  // Local copies: stores through the (byte) output pointers cannot alias these.
  const uint8_t* inputs[kMaxOperands];
  uint8_t* outputs[kMaxOperands];
  for (unsigned j = 0; j < n; ++j) inputs[j] = input_list[j];
  for (unsigned k = 0; k < output_count; ++k) outputs[k] = output_list[k];
  V divisor = V{} + static_cast<T>(n);  // every lane
  // The scalar definition for elements [from, to): the ends that vectors do not cover.
  const auto scalar = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      T value = load<T>(inputs[0], i);
      for (unsigned j = 1; j < n; ++j) value = combine<kOp>(value, load<T>(inputs[j], i));
      for (unsigned k = 0; k < output_count; ++k) finish_one<kType, kMean>(value, outputs[k], i, n);
    }
  };
  size_t i = 0;
  if constexpr (kStream) {  // scalar up to the first vector-aligned output element
    const uintptr_t address = reinterpret_cast<uintptr_t>(outputs[0]);
    i = ((kBytes - address % kBytes) % kBytes) / sizeof(T);
    if (i > count) i = count;
    scalar(0, i);
  }
  for (; i + kStep <= count; i += kStep) {
    const size_t at = i * sizeof(T);
    V acc[kUnroll];
#pragma GCC unroll 4
    for (unsigned u = 0; u < kUnroll; ++u) acc[u] = load_vector<V>(inputs[0] + at + u * kBytes);
#pragma GCC unroll 16
    for (unsigned j = 1; j < n; ++j) {
#pragma GCC unroll 4
      for (unsigned u = 0; u < kUnroll; ++u)
        acc[u] = combine_vector<kOp, T>(acc[u], load_vector<V>(inputs[j] + at + u * kBytes));
    }
    if constexpr (kMean) {
#pragma GCC unroll 4
      for (unsigned u = 0; u < kUnroll; ++u) acc[u] = acc[u] / divisor;
    }
#pragma GCC unroll 16
    for (unsigned k = 0; k < output_count; ++k) {
#pragma GCC unroll 4
      for (unsigned u = 0; u < kUnroll; ++u) {
        if constexpr (kStream) stream_vector(outputs[k] + at + u * kBytes, acc[u]);
        else store_vector(outputs[k] + at + u * kBytes, acc[u]);
      }
    }
  }
  scalar(i, count);
  if constexpr (kStream) stream_fence();
}

// Whether the outputs allow streaming stores: element-aligned and all at the same offset within a
// vector (so that one scalar head aligns them all).
template <class T>
bool streamable(uint8_t* const* outputs, unsigned output_count) {
  constexpr size_t kBytes = sizeof(typename VectorOf<T>::type);
  const uintptr_t first = reinterpret_cast<uintptr_t>(outputs[0]) % kBytes;
  if (first % sizeof(T) != 0) return false;
  for (unsigned k = 1; k < output_count; ++k)
    if (reinterpret_cast<uintptr_t>(outputs[k]) % kBytes != first) return false;
  return true;
}

// Blocked kernel for the 16-bit floats (float32 accumulator): per block of kBlock elements, the
// first two inputs are combined into an L1-resident accumulator, the others folded in, and the
// finished block written to the first output and copied to the rest while it is still in L1. A
// block is written only after all inputs of that block were read.
template <DType kType, ReduceOp kOp, bool kMean>
void reduce_blocked_kernel(const uint8_t* const* inputs, unsigned n, uint8_t* const* outputs, unsigned output_count,
                           size_t count) {
  using Accumulator = typename Element<kType>::Accumulator;
  constexpr size_t kBlock = 1024;
  alignas(64) Accumulator accumulator[kBlock];
  const size_t element = sizeof(uint16_t);
  for (size_t begin = 0; begin < count; begin += kBlock) {
    const size_t length = count - begin < kBlock ? count - begin : kBlock;
    const size_t at = begin * element;
    const uint8_t* first = inputs[0] + at;
    if (n == 1) {
      for (size_t i = 0; i < length; ++i) accumulator[i] = Element<kType>::read(first, i);
    } else {
      const uint8_t* second = inputs[1] + at;
      for (size_t i = 0; i < length; ++i)
        accumulator[i] = combine<kOp>(Element<kType>::read(first, i), Element<kType>::read(second, i));
    }
    for (unsigned j = 2; j < n; ++j) combine_loop<kType, kOp>(inputs[j] + at, accumulator, 0, length);
    finish_loop<kType, kMean>(accumulator, outputs[0] + at, length, n);
    for (unsigned k = 1; k < output_count; ++k) __builtin_memcpy(outputs[k] + at, outputs[0] + at, length * element);
  }
}

template <DType kType, ReduceOp kOp, bool kMean>
void reduce_many_typed(const uint8_t* const* inputs, unsigned n, uint8_t* const* outputs, unsigned output_count,
                       size_t count, bool stream) {
  if constexpr (kType == DType::kBF16 || kType == DType::kF16) {
    reduce_blocked_kernel<kType, kOp, kMean>(inputs, n, outputs, output_count, count);
  } else {
    using T = typename Element<kType>::Accumulator;
    if (kCanStream && stream && streamable<T>(outputs, output_count)) {
      if (n == 2 && output_count == 2) return reduce_direct_kernel<kType, kOp, kMean, true, 2, 2>(inputs, n, outputs, output_count, count);
      return reduce_direct_kernel<kType, kOp, kMean, true, 0, 0>(inputs, n, outputs, output_count, count);
    }
    if (n == 2 && output_count == 2) return reduce_direct_kernel<kType, kOp, kMean, false, 2, 2>(inputs, n, outputs, output_count, count);
    if (n == 2 && output_count == 1) return reduce_direct_kernel<kType, kOp, kMean, false, 2, 1>(inputs, n, outputs, output_count, count);
    reduce_direct_kernel<kType, kOp, kMean, false, 0, 0>(inputs, n, outputs, output_count, count);
  }
}

template <DType kType>
void reduce_many_by_op(ReduceOp op, const uint8_t* const* inputs, unsigned n, uint8_t* const* outputs,
                       unsigned output_count, size_t count, bool stream) {
  switch (op) {
    case ReduceOp::kSum: return reduce_many_typed<kType, ReduceOp::kSum, false>(inputs, n, outputs, output_count, count, stream);
    case ReduceOp::kMean: return reduce_many_typed<kType, ReduceOp::kSum, true>(inputs, n, outputs, output_count, count, stream);
    case ReduceOp::kMax: return reduce_many_typed<kType, ReduceOp::kMax, false>(inputs, n, outputs, output_count, count, stream);
    case ReduceOp::kMin: return reduce_many_typed<kType, ReduceOp::kMin, false>(inputs, n, outputs, output_count, count, stream);
  }
}

// The one list of reducible dtypes: calls body(integral_constant<DType, T>{}) for `type` and
// returns true, or returns false for a dtype no reduction takes (reducible() rejects those before
// any data moves, so the entries below simply do nothing for them).
template <class Body>
bool with_reducible_type(DType type, Body body) {
  switch (type) {
    case DType::kF32: body(integral_constant<DType, DType::kF32>{}); return true;
    case DType::kBF16: body(integral_constant<DType, DType::kBF16>{}); return true;
    case DType::kF16: body(integral_constant<DType, DType::kF16>{}); return true;
    case DType::kF64: body(integral_constant<DType, DType::kF64>{}); return true;
    case DType::kI32: body(integral_constant<DType, DType::kI32>{}); return true;
    case DType::kU32: body(integral_constant<DType, DType::kU32>{}); return true;
    default: return false;
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
  return with_reducible_type(type, [](auto) {});
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
  with_reducible_type(type, [&](auto t) { combine_by_op<decltype(t)::value>(op, elements, accumulator, first, count); });
}

void reduce_finish(ReduceOp op, DType type, const void* accumulator, uint8_t* out, size_t count, unsigned contributions) {
  const bool mean = op == ReduceOp::kMean;
  with_reducible_type(type,
                      [&](auto t) { finish_by_mean<decltype(t)::value>(mean, accumulator, out, count, contributions); });
}

void reduce_many(ReduceOp op, DType type, const uint8_t* const* inputs, unsigned n, uint8_t* const* outputs,
                 unsigned output_count, size_t count, bool stream) {
  with_reducible_type(type, [&](auto t) {
    reduce_many_by_op<decltype(t)::value>(op, inputs, n, outputs, output_count, count, stream);
  });
}

}  // namespace rt
