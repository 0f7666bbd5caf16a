// Element conversions for cast: each source element is decoded into an exact Number (sign,
// integer magnitude, power-of-two exponent, or infinity/NaN) and encoded into the target dtype
// with one rounding or one saturation. float32/bfloat16/float16 pairs take half.hpp's
// conversions directly.
#include "cast.hpp"

#include "copy.hpp"
#include "index_iterator.hpp"
#include "runtime/dtype/half.hpp"
#include "hal/support/unaligned.hpp"

namespace rt {
namespace {

// Element storage types, floats as their bits so that no FPU touches them.
struct F32 { uint32_t bits; };
struct F64 { uint64_t bits; };
struct Bool { uint8_t value; };
struct Complex64 { F32 real, imaginary; };

template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<storage type of `type`>{}).
template <class F>
void with_storage_type(DType type, F&& f) {
  switch (type) {
    case DType::kF32: f(TypeTag<F32>{}); return;
    case DType::kF64: f(TypeTag<F64>{}); return;
    case DType::kBF16: f(TypeTag<BFloat16>{}); return;
    case DType::kF16: f(TypeTag<Float16>{}); return;
    case DType::kI8: f(TypeTag<int8_t>{}); return;
    case DType::kI32: f(TypeTag<int32_t>{}); return;
    case DType::kU32: f(TypeTag<uint32_t>{}); return;
    case DType::kI64: f(TypeTag<int64_t>{}); return;
    case DType::kBool: f(TypeTag<Bool>{}); return;
    case DType::kC64: f(TypeTag<Complex64>{}); return;
  }
}

// ---------------------------------------------------------------- exact values

// A source element exactly: ±magnitude × 2^exponent, ±infinity or NaN.
struct Number {
  enum class Kind : uint8_t { kFinite, kInfinity, kNaN };
  Kind kind = Kind::kFinite;
  bool negative = false;
  bool from_float = false;    // float sources saturate into integers, integer sources wrap
  uint64_t magnitude = 0;
  int exponent = 0;
  uint64_t nan_fraction = 0;  // NaN payload, left-aligned in 64 bits
  unsigned fraction_bits = 0; // the source format's fraction width
};

// An IEEE binary format: float64, float32, bfloat16, float16.
struct FloatFormat {
  unsigned exponent_bits;
  unsigned fraction_bits;
  bool canonical_nan;  // NaN results are sign | quiet bit (half.hpp's float16 rule)
  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  uint64_t max_field() const { return (uint64_t{1} << exponent_bits) - 1; }
};
constexpr FloatFormat kFloat64{11, 52, false};
constexpr FloatFormat kFloat32{8, 23, false};
constexpr FloatFormat kBFloat16{8, 7, false};
constexpr FloatFormat kFloat16{5, 10, true};

Number decode_float(uint64_t bits, FloatFormat format) {
  const unsigned m = format.fraction_bits;
  Number n;
  n.from_float = true;
  n.fraction_bits = m;
  n.negative = ((bits >> (format.exponent_bits + m)) & 1) != 0;
  const uint64_t field = (bits >> m) & format.max_field();
  const uint64_t fraction = bits & ((uint64_t{1} << m) - 1);
  if (field == format.max_field()) {
    n.kind = fraction != 0 ? Number::Kind::kNaN : Number::Kind::kInfinity;
    n.nan_fraction = fraction << (64 - m);
  } else if (field == 0) {  // zero or subnormal
    n.magnitude = fraction;
    n.exponent = 1 - format.bias() - static_cast<int>(m);
  } else {
    n.magnitude = fraction | (uint64_t{1} << m);
    n.exponent = static_cast<int>(field) - format.bias() - static_cast<int>(m);
  }
  return n;
}

Number decode_integer(int64_t value) {
  Number n;
  n.negative = value < 0;
  n.magnitude = n.negative ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  return n;
}

// ±magnitude × 2^exponent rounded to nearest even in `format`; overflow gives infinity.
uint64_t round_to_format(bool negative, uint64_t magnitude, int exponent, FloatFormat format) {
  const int m = static_cast<int>(format.fraction_bits);
  const uint64_t sign = uint64_t{negative} << (format.exponent_bits + format.fraction_bits);
  if (magnitude == 0) return sign;
  const int top_bit = 63 - __builtin_clzll(magnitude);
  const int biased = top_bit + exponent + format.bias();  // biased exponent if the result is normal
  // Exponent of the result's last fraction bit, and how many magnitude bits fall below it.
  const int quantum = (biased >= 1 ? top_bit + exponent : 1 - format.bias()) - m;
  const int shift = quantum - exponent;
  uint64_t kept;
  if (shift <= 0) {
    kept = magnitude << -shift;  // exact
  } else if (shift >= 64) {
    kept = (shift == 64 && magnitude > (uint64_t{1} << 63)) ? 1 : 0;  // at most one unit, ties to 0
  } else {
    kept = magnitude >> shift;
    const uint64_t rest = magnitude & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rest > half || (rest == half && (kept & 1) != 0)) ++kept;
  }
  // A normal result carries its implicit bit into the exponent field; rounding up may carry further.
  uint64_t result = biased >= 1 ? (static_cast<uint64_t>(biased - 1) << m) + kept : kept;
  const uint64_t infinity = format.max_field() << m;
  if (result > infinity) result = infinity;
  return sign | result;
}

uint64_t encode_float(const Number& n, FloatFormat format) {
  const unsigned m = format.fraction_bits;
  const uint64_t sign = uint64_t{n.negative} << (format.exponent_bits + m);
  const uint64_t infinity = format.max_field() << m;
  const uint64_t quiet = uint64_t{1} << (m - 1);
  switch (n.kind) {
    case Number::Kind::kInfinity: return sign | infinity;
    case Number::Kind::kNaN: {
      if (format.canonical_nan) return sign | infinity | quiet;
      uint64_t fraction = n.nan_fraction >> (64 - m);
      if (m < n.fraction_bits) fraction |= quiet;
      return sign | infinity | fraction;
    }
    case Number::Kind::kFinite: break;
  }
  return round_to_format(n.negative, n.magnitude, n.exponent, format);
}

// The range of an integer dtype.
template <class T> struct IntegerRange;
template <> struct IntegerRange<int8_t> { static constexpr int64_t kMin = INT8_MIN, kMax = INT8_MAX; };
template <> struct IntegerRange<int32_t> { static constexpr int64_t kMin = INT32_MIN, kMax = INT32_MAX; };
template <> struct IntegerRange<uint32_t> { static constexpr int64_t kMin = 0, kMax = UINT32_MAX; };
template <> struct IntegerRange<int64_t> { static constexpr int64_t kMin = INT64_MIN, kMax = INT64_MAX; };

// Float to integer: truncate toward zero, saturate, NaN -> 0.
template <class T>
T saturate_to_integer(const Number& n) {
  using Range = IntegerRange<T>;
  if (n.kind == Number::Kind::kNaN) return 0;
  bool too_big = n.kind == Number::Kind::kInfinity;
  uint64_t whole = 0;  // |value| truncated
  if (!too_big && n.magnitude != 0) {
    if (n.exponent >= 0) {
      too_big = n.exponent > __builtin_clzll(n.magnitude);
      if (!too_big) whole = n.magnitude << n.exponent;
    } else if (n.exponent > -64) {
      whole = n.magnitude >> -n.exponent;
    }
  }
  if (n.negative) {
    const uint64_t limit = uint64_t{0} - static_cast<uint64_t>(Range::kMin);  // |min|
    if (too_big || whole > limit) return static_cast<T>(Range::kMin);
    return static_cast<T>(uint64_t{0} - whole);  // modular, exact in range
  }
  if (too_big || whole > static_cast<uint64_t>(Range::kMax)) return static_cast<T>(Range::kMax);
  return static_cast<T>(whole);
}

// Integer to integer: two's complement wrap-around.
template <class T>
T wrap_to_integer(const Number& n) {
  return static_cast<T>(n.negative ? uint64_t{0} - n.magnitude : n.magnitude);
}

// ---------------------------------------------------------------- per-type decode / encode

Number decode(F32 x) { return decode_float(x.bits, kFloat32); }
Number decode(F64 x) { return decode_float(x.bits, kFloat64); }
Number decode(BFloat16 x) { return decode_float(x.bits, kBFloat16); }
Number decode(Float16 x) { return decode_float(x.bits, kFloat16); }
Number decode(int8_t x) { return decode_integer(x); }
Number decode(int32_t x) { return decode_integer(x); }
Number decode(uint32_t x) { return decode_integer(x); }
Number decode(int64_t x) { return decode_integer(x); }
Number decode(Bool x) { return decode_integer(x.value != 0 ? 1 : 0); }

template <class To>
To encode(const Number& n) {
  if constexpr (is_same_v<To, F32>) return F32{static_cast<uint32_t>(encode_float(n, kFloat32))};
  else if constexpr (is_same_v<To, F64>) return F64{encode_float(n, kFloat64)};
  else if constexpr (is_same_v<To, BFloat16>) return BFloat16{static_cast<uint16_t>(encode_float(n, kBFloat16))};
  else if constexpr (is_same_v<To, Float16>) return Float16{static_cast<uint16_t>(encode_float(n, kFloat16))};
  else if constexpr (is_same_v<To, Bool>) return Bool{n.kind != Number::Kind::kFinite || n.magnitude != 0 ? uint8_t{1} : uint8_t{0}};
  else if constexpr (is_same_v<To, Complex64>) return Complex64{encode<F32>(n), F32{0}};
  else return n.from_float ? saturate_to_integer<To>(n) : wrap_to_integer<To>(n);
}

// float32 as a float value (half.hpp's conversions take and return floats).
float as_float(F32 x) { return float_from_bits(x.bits); }
float as_float(BFloat16 x) { return to_float(x); }
float as_float(Float16 x) { return to_float(x); }

template <class T>
inline constexpr bool kHalfPrecisionOrFloat32 = is_same_v<T, F32> || is_same_v<T, BFloat16> || is_same_v<T, Float16>;

template <class To, class From>
To convert(From x) {
  if constexpr (is_same_v<To, From>) {
    return x;
  } else if constexpr (is_same_v<From, Complex64>) {
    return To{};  // rejected before any element is converted
  } else if constexpr (kHalfPrecisionOrFloat32<From> && kHalfPrecisionOrFloat32<To>) {
    const float value = as_float(x);  // exact
    if constexpr (is_same_v<To, F32>) return F32{float_bits(value)};
    else if constexpr (is_same_v<To, BFloat16>) return to_bfloat16(value);
    else return to_float16(value);
  } else {
    return encode<To>(decode(x));
  }
}

template <class From, class To>
void cast_rows(IndexIterator<2>& rows) {
  do {
    const uint8_t* in = rows.pointer(0);
    uint8_t* out = rows.pointer(1);
    const int64_t in_stride = rows.row_stride(0), out_stride = rows.row_stride(1);
    for (int64_t k = rows.row_size(); k > 0; --k, in += in_stride, out += out_stride)
      store_unaligned(out, convert<To>(load_unaligned<From>(in)));
  } while (rows.next_row());
}

}  // namespace

bool cast_supported(DType from, DType to) { return from != DType::kC64 || to == DType::kC64; }

Status cast(const Tensor& in, const Tensor& out) {
  if (!cast_supported(in.dtype, out.dtype))
    return Status::error(StatusCode::kUnimplemented, "Cast {} to {} is not supported", dtype_name(in.dtype), dtype_name(out.dtype));
  if (!(in.shape == out.shape))
    return invalid_argument("Cast: input shape {} differs from output shape {}", in.shape.sizes(), out.shape.sizes());
  if (in.dtype == out.dtype) {
    copy_unchecked(in, out);
    return Status::ok();
  }
  IndexIterator<2> rows(out.shape);
  if (rows.empty()) return Status::ok();
  rows.set_operand(0, in);
  rows.set_operand(1, out);
  rows.coalesce();
  with_storage_type(in.dtype, [&](auto from) {
    with_storage_type(out.dtype, [&](auto to) { cast_rows<typename decltype(from)::type, typename decltype(to)::type>(rows); });
  });
  return Status::ok();
}

}  // namespace rt
