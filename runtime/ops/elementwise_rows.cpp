// The fast path of binary() over one output row (elementwise_rows.hpp).
#include "elementwise_rows.hpp"

#include "float_math.hpp"
#include "hal/support/type_traits.hpp"

namespace rt {
namespace {

// The four broadcast cases of one row, each a loop the compiler can vectorize.
template <class T, class F>
void row(const T* a, bool a_step, const T* b, bool b_step, T* out, int64_t count, F f) {
  if (a_step && b_step) {
    for (int64_t i = 0; i < count; ++i) out[i] = f(a[i], b[i]);
  } else if (a_step) {
    const T y = *b;
    for (int64_t i = 0; i < count; ++i) out[i] = f(a[i], y);
  } else if (b_step) {
    const T x = *a;
    for (int64_t i = 0; i < count; ++i) out[i] = f(x, b[i]);
  } else {
    const T value = f(*a, *b);
    for (int64_t i = 0; i < count; ++i) out[i] = value;
  }
}

template <class T>
void float_row(BinaryOp op, const T* a, bool a_step, const T* b, bool b_step, T* out, int64_t count) {
  const auto rows_of = [&](auto f) { row(a, a_step, b, b_step, out, count, f); };
  switch (op) {
    case BinaryOp::kAdd: return rows_of([](T x, T y) { return canonical_nan_if_nan(x + y); });
    case BinaryOp::kSub: return rows_of([](T x, T y) { return canonical_nan_if_nan(x - y); });
    case BinaryOp::kMul: return rows_of([](T x, T y) { return canonical_nan_if_nan(x * y); });
    case BinaryOp::kDiv: return rows_of([](T x, T y) { return canonical_nan_if_nan(x / y); });
    case BinaryOp::kMax: return rows_of([](T x, T y) { return canonical_nan_if_nan((x > y || x != x) ? x : y); });
    case BinaryOp::kMin: return rows_of([](T x, T y) { return canonical_nan_if_nan((x < y || x != x) ? x : y); });
  }
}

// int32 and uint32 through unsigned arithmetic (wrapping), XLA's division rules.
template <class T>
void integer_row(BinaryOp op, const T* a, bool a_step, const T* b, bool b_step, T* out, int64_t count) {
  using U = uint32_t;
  const auto rows_of = [&](auto f) { row(a, a_step, b, b_step, out, count, f); };
  switch (op) {
    case BinaryOp::kAdd: return rows_of([](T x, T y) { return static_cast<T>(U(x) + U(y)); });
    case BinaryOp::kSub: return rows_of([](T x, T y) { return static_cast<T>(U(x) - U(y)); });
    case BinaryOp::kMul: return rows_of([](T x, T y) { return static_cast<T>(U(x) * U(y)); });
    case BinaryOp::kMax: return rows_of([](T x, T y) { return x > y ? x : y; });
    case BinaryOp::kMin: return rows_of([](T x, T y) { return x < y ? x : y; });
    case BinaryOp::kDiv:
      return rows_of([](T x, T y) -> T {
        if (y == 0) return static_cast<T>(-1);  // int32: -1, uint32: all ones
        if constexpr (static_cast<T>(-1) < 0) {
          if (x == static_cast<T>(0x80000000u) && y == -1) return x;
        }
        return x / y;
      });
  }
}

template <class T>
bool aligned(const uint8_t* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

template <class T>
bool typed_row(BinaryOp op, const uint8_t* a, bool a_step, const uint8_t* b, bool b_step, uint8_t* out, int64_t count) {
  if (!aligned<T>(a) || !aligned<T>(b) || !aligned<T>(out)) return false;
  const T* x = reinterpret_cast<const T*>(a);
  const T* y = reinterpret_cast<const T*>(b);
  T* o = reinterpret_cast<T*>(out);
  if constexpr (is_floating_point_v<T>) float_row(op, x, a_step, y, b_step, o, count);
  else integer_row(op, x, a_step, y, b_step, o, count);
  return true;
}

}  // namespace

bool binary_row(BinaryOp op, DType type, const uint8_t* a, bool a_step, const uint8_t* b, bool b_step, uint8_t* out,
                int64_t count) {
  switch (type) {
    case DType::kF32: return typed_row<float>(op, a, a_step, b, b_step, out, count);
    case DType::kF64: return typed_row<double>(op, a, a_step, b, b_step, out, count);
    case DType::kI32: return typed_row<int32_t>(op, a, a_step, b, b_step, out, count);
    case DType::kU32: return typed_row<uint32_t>(op, a, a_step, b, b_step, out, count);
    default: return false;
  }
}

}  // namespace rt
