// Unary op kernels per dtype and the strided walk that applies them (see unary.hpp for numerics).
#include "unary.hpp"

#include "float_math.hpp"
#include "runtime/dtype/half.hpp"
#include "hal/support/unaligned.hpp"

namespace rt {
namespace {

constexpr float kSqrt2 = 0x1.6a09e6p+0f;       // 1.41421353816986083984375
constexpr float kSqrt2OverPi = 0x1.988454p-1f;  // 0.79788458347320556640625
constexpr float kGeluCubic = 0x1.6e4e26p-5f;    // 0.044715 rounded to float32

float gelu(float x) { return (0.5f * x) * (1.0f + erf_f32(x / kSqrt2)); }

float gelu_tanh(float x) {
  const float cube = (x * x) * x;
  const float u = kSqrt2OverPi * (x + kGeluCubic * cube);
  return (0.5f * x) * (1.0f + tanh_f32(u));
}

// Every op except neg and abs (sign-bit operations handled on the storage bits).
float apply_f32(UnaryOp op, float x) {
  switch (op) {
    case UnaryOp::kRelu: return (x > 0.0f || x != x) ? x : 0.0f;
    case UnaryOp::kSquare: return x * x;
    case UnaryOp::kSqrt: return sqrt_f32(x);
    case UnaryOp::kRsqrt: return static_cast<float>(1.0 / sqrt_f64(x));
    case UnaryOp::kExp: return exp_f32(x);
    case UnaryOp::kLog: return log_f32(x);
    case UnaryOp::kTanh: return tanh_f32(x);
    case UnaryOp::kSigmoid: return sigmoid_f32(x);
    case UnaryOp::kGelu: return gelu(x);
    case UnaryOp::kGeluTanh: return gelu_tanh(x);
    case UnaryOp::kNeg: case UnaryOp::kAbs: break;
  }
  return x;
}

double apply_f64(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::kRelu: return (x > 0.0 || x != x) ? x : 0.0;
    case UnaryOp::kSquare: return x * x;
    case UnaryOp::kSqrt: return sqrt_f64(x);
    case UnaryOp::kRsqrt: return 1.0 / sqrt_f64(x);
    default: return x;  // rejected before iteration
  }
}

int32_t apply_i32(UnaryOp op, int32_t x) {
  const uint32_t bits = static_cast<uint32_t>(x);
  switch (op) {
    case UnaryOp::kRelu: return x > 0 ? x : 0;
    case UnaryOp::kNeg: return static_cast<int32_t>(0u - bits);
    case UnaryOp::kAbs: return x < 0 ? static_cast<int32_t>(0u - bits) : x;
    case UnaryOp::kSquare: return static_cast<int32_t>(bits * bits);
    default: return x;  // rejected before iteration
  }
}

// Calls visit(in_element, out_element) for every index of the (shared) shape, in row-major order.
template <class Visit>
void for_each_element(const Tensor& in, const Tensor& out, Visit visit) {
  if (in.shape.num_elements() == 0) return;
  const unsigned rank = in.shape.rank;
  if (rank == 0) {
    visit(in.data, out.data);
    return;
  }
  int64_t in_strides[kMaxRank], out_strides[kMaxRank];
  for (unsigned d = 0; d < rank; ++d) {
    in_strides[d] = in.strides[d] * static_cast<int64_t>(in.element_size());
    out_strides[d] = out.strides[d] * static_cast<int64_t>(out.element_size());
  }
  const int64_t* dims = in.shape.dims;
  int64_t index[kMaxRank] = {};
  const uint8_t* from = in.data;
  uint8_t* to = out.data;
  for (;;) {
    for (int64_t i = 0; i < dims[rank - 1]; ++i) visit(from + i * in_strides[rank - 1], to + i * out_strides[rank - 1]);
    // Odometer over the outer dimensions.
    unsigned d = rank - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++index[d] < dims[d]) {
        from += in_strides[d];
        to += out_strides[d];
        break;
      }
      from -= in_strides[d] * (dims[d] - 1);
      to -= out_strides[d] * (dims[d] - 1);
      index[d] = 0;
    }
  }
}

// neg / abs on the storage bits of a float type whose sign is the top bit of Bits.
template <class Bits>
void sign_op(UnaryOp op, const Tensor& in, const Tensor& out) {
  const Bits sign = static_cast<Bits>(Bits{1} << (sizeof(Bits) * 8 - 1));
  for_each_element(in, out, [op, sign](const uint8_t* from, uint8_t* to) {
    const Bits bits = load_unaligned<Bits>(from);
    store_unaligned<Bits>(to, op == UnaryOp::kNeg ? static_cast<Bits>(bits ^ sign) : static_cast<Bits>(bits & ~sign));
  });
}

// float32 arithmetic on a 16-bit float storage type, rounded once on the way back.
template <class Half, Half (*round)(float)>
void half_op(UnaryOp op, const Tensor& in, const Tensor& out) {
  for_each_element(in, out, [op](const uint8_t* from, uint8_t* to) {
    const float x = to_float(Half{load_unaligned<uint16_t>(from)});
    store_unaligned<uint16_t>(to, round(canonical_nan_if_nan(apply_f32(op, x))).bits);
  });
}

const char* supported_dtypes(UnaryOp op) {
  switch (op) {
    case UnaryOp::kRelu: case UnaryOp::kNeg: case UnaryOp::kAbs: case UnaryOp::kSquare:
      return "float32, float64, bfloat16, float16, int32";
    case UnaryOp::kSqrt: case UnaryOp::kRsqrt:
      return "float32, float64, bfloat16, float16";
    default:
      return "float32, bfloat16, float16";
  }
}

}  // namespace

const char* unary_op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::kRelu: return "relu";
    case UnaryOp::kNeg: return "neg";
    case UnaryOp::kAbs: return "abs";
    case UnaryOp::kSquare: return "square";
    case UnaryOp::kSqrt: return "sqrt";
    case UnaryOp::kRsqrt: return "rsqrt";
    case UnaryOp::kExp: return "exp";
    case UnaryOp::kLog: return "log";
    case UnaryOp::kTanh: return "tanh";
    case UnaryOp::kSigmoid: return "sigmoid";
    case UnaryOp::kGelu: return "gelu";
    case UnaryOp::kGeluTanh: return "gelu_tanh";
  }
  return "unknown";
}

bool unary_supports(UnaryOp op, DType dtype) {
  const bool basic = op == UnaryOp::kRelu || op == UnaryOp::kNeg || op == UnaryOp::kAbs || op == UnaryOp::kSquare;
  switch (dtype) {
    case DType::kF32: case DType::kBF16: case DType::kF16: return true;
    case DType::kF64: return basic || op == UnaryOp::kSqrt || op == UnaryOp::kRsqrt;
    case DType::kI32: return basic;
    default: return false;
  }
}

namespace {

// relu and square of contiguous aligned float32: one loop the compiler vectorizes (the same bits as
// the element walk: the same operation, NaN canonicalised). False for anything else.
bool simple_f32_contiguous(UnaryOp op, const Tensor& in, const Tensor& out) {
  if ((op != UnaryOp::kRelu && op != UnaryOp::kSquare) || !in.is_contiguous() || !out.is_contiguous() ||
      reinterpret_cast<uintptr_t>(in.data) % alignof(float) != 0 ||
      reinterpret_cast<uintptr_t>(out.data) % alignof(float) != 0)
    return false;
  const float* from = reinterpret_cast<const float*>(in.data);
  float* to = reinterpret_cast<float*>(out.data);
  const int64_t count = in.shape.num_elements();
  if (op == UnaryOp::kRelu) {  // apply_f32's expressions, spelled out so the loops vectorize
    for (int64_t i = 0; i < count; ++i) {
      const float x = from[i];
      to[i] = canonical_nan_if_nan((x > 0.0f || x != x) ? x : 0.0f);
    }
  } else {
    for (int64_t i = 0; i < count; ++i) to[i] = canonical_nan_if_nan(from[i] * from[i]);
  }
  return true;
}

}  // namespace

Status unary(UnaryOp op, const Tensor& in, const Tensor& out) {
  const char* name = unary_op_name(op);
  if (in.dtype != out.dtype)
    return invalid_argument("{}: input dtype {} and output dtype {} differ", name, dtype_name(in.dtype),
                            dtype_name(out.dtype));
  if (!unary_supports(op, in.dtype))
    return invalid_argument("{} does not support dtype {} (supported: {})", name, dtype_name(in.dtype),
                            supported_dtypes(op));
  if (!(in.shape == out.shape))
    return invalid_argument("{}: input shape {} and output shape {} differ", name, in.shape.sizes(), out.shape.sizes());
  const bool sign_bit_op = op == UnaryOp::kNeg || op == UnaryOp::kAbs;
  switch (in.dtype) {
    case DType::kF32:
      if (sign_bit_op) sign_op<uint32_t>(op, in, out);
      else if (!simple_f32_contiguous(op, in, out))
        for_each_element(in, out, [op](const uint8_t* from, uint8_t* to) {
          store_unaligned(to, canonical_nan_if_nan(apply_f32(op, load_unaligned<float>(from))));
        });
      break;
    case DType::kF64:
      if (sign_bit_op) sign_op<uint64_t>(op, in, out);
      else
        for_each_element(in, out, [op](const uint8_t* from, uint8_t* to) {
          store_unaligned(to, canonical_nan_if_nan(apply_f64(op, load_unaligned<double>(from))));
        });
      break;
    case DType::kBF16:
      if (sign_bit_op) sign_op<uint16_t>(op, in, out);
      else half_op<BFloat16, to_bfloat16>(op, in, out);
      break;
    case DType::kF16:
      if (sign_bit_op) sign_op<uint16_t>(op, in, out);
      else half_op<Float16, to_float16>(op, in, out);
      break;
    case DType::kI32:
      for_each_element(in, out, [op](const uint8_t* from, uint8_t* to) {
        store_unaligned(to, apply_i32(op, load_unaligned<int32_t>(from)));
      });
      break;
    default: break;  // rejected above
  }
  return Status::ok();
}

}  // namespace rt
