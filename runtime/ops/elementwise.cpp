// Broadcasting iteration (an odometer over the output index) and the per-dtype element kernels.
#include "elementwise.hpp"

#include "elementwise_rows.hpp"

#include "dynamic_shape.hpp"
#include "float_math.hpp"
#include "runtime/dtype/half.hpp"
#include "runtime/dtype/input_type_error.hpp"
#include "hal/support/unaligned.hpp"

namespace rt {
namespace {

template <class T>
T apply_float_raw(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::kAdd: return a + b;
    case BinaryOp::kSub: return a - b;
    case BinaryOp::kMul: return a * b;
    case BinaryOp::kDiv: return a / b;
    case BinaryOp::kMax: return (a > b || a != a) ? a : b;
    case BinaryOp::kMin: return (a < b || a != a) ? a : b;
  }
  return a;
}

// Every NaN result becomes the canonical quiet NaN: x86 and Arm propagate payloads (and x86's
// default NaN has the sign bit set) while RISC-V canonicalises, so this is what keeps boards equal.
template <class T>
T apply_float(BinaryOp op, T a, T b) {
  return canonical_nan_if_nan(apply_float_raw(op, a, b));
}

int32_t apply_i32(BinaryOp op, int32_t a, int32_t b) {
  const uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
  switch (op) {
    case BinaryOp::kAdd: return static_cast<int32_t>(ua + ub);
    case BinaryOp::kSub: return static_cast<int32_t>(ua - ub);
    case BinaryOp::kMul: return static_cast<int32_t>(ua * ub);
    case BinaryOp::kDiv:
      if (b == 0) return -1;
      if (a == INT32_MIN && b == -1) return INT32_MIN;
      return a / b;
    case BinaryOp::kMax: return a > b ? a : b;
    case BinaryOp::kMin: return a < b ? a : b;
  }
  return a;
}

uint32_t apply_u32(BinaryOp op, uint32_t a, uint32_t b) {
  switch (op) {
    case BinaryOp::kAdd: return a + b;
    case BinaryOp::kSub: return a - b;
    case BinaryOp::kMul: return a * b;
    case BinaryOp::kDiv: return b == 0 ? ~0u : a / b;
    case BinaryOp::kMax: return a > b ? a : b;
    case BinaryOp::kMin: return a < b ? a : b;
  }
  return a;
}

void apply_element(BinaryOp op, DType type, const uint8_t* a, const uint8_t* b, uint8_t* out) {
  switch (type) {
    case DType::kF32: store_unaligned(out, apply_float(op, load_unaligned<float>(a), load_unaligned<float>(b))); return;
    case DType::kF64: store_unaligned(out, apply_float(op, load_unaligned<double>(a), load_unaligned<double>(b))); return;
    case DType::kBF16: {
      const float r = apply_float(op, to_float(BFloat16{load_unaligned<uint16_t>(a)}), to_float(BFloat16{load_unaligned<uint16_t>(b)}));
      store_unaligned(out, to_bfloat16(r).bits);
      return;
    }
    case DType::kF16: {
      const float r = apply_float(op, to_float(Float16{load_unaligned<uint16_t>(a)}), to_float(Float16{load_unaligned<uint16_t>(b)}));
      store_unaligned(out, to_float16(r).bits);
      return;
    }
    case DType::kI32: store_unaligned(out, apply_i32(op, load_unaligned<int32_t>(a), load_unaligned<int32_t>(b))); return;
    case DType::kU32: store_unaligned(out, apply_u32(op, load_unaligned<uint32_t>(a), load_unaligned<uint32_t>(b))); return;
    default: return;  // rejected before iteration
  }
}

// Strides (in bytes) of `t` seen through the output's rank: missing leading dims and size-1 dims
// broadcast with stride 0.
void broadcast_strides(const Tensor& t, unsigned rank, int64_t* strides) {
  const unsigned offset = rank - t.shape.rank;
  for (unsigned d = 0; d < rank; ++d) {
    if (d < offset || t.shape.dims[d - offset] == 1) strides[d] = 0;
    else strides[d] = t.strides[d - offset] * static_cast<int64_t>(t.element_size());
  }
}

// The iteration space of binary() with as few dimensions as it has: dimensions of size 1 dropped,
// and a dimension merged into the one before it wherever every operand steps over both as over
// one (stride before = stride after x size after, broadcast strides of 0 included). A contiguous
// [64, 128] update is then one row of 8192 elements, not 64 rows of 128 each with its own loop
// set-up. Elementwise results do not depend on the order the elements are visited in.
struct Loops {
  unsigned rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t a[kMaxRank] = {}, b[kMaxRank] = {}, out[kMaxRank] = {};  // byte strides
};

Loops coalesced_loops(const Shape& shape, const int64_t* a, const int64_t* b, const int64_t* out) {
  Loops loops;
  for (unsigned d = 0; d < shape.rank; ++d) {
    const int64_t n = shape.dims[d];
    if (n == 1) continue;
    const unsigned prev = loops.rank - 1;
    if (loops.rank > 0 && loops.a[prev] == a[d] * n && loops.b[prev] == b[d] * n && loops.out[prev] == out[d] * n) {
      loops.dims[prev] *= n;
      loops.a[prev] = a[d], loops.b[prev] = b[d], loops.out[prev] = out[d];
      continue;
    }
    loops.dims[loops.rank] = n;
    loops.a[loops.rank] = a[d], loops.b[loops.rank] = b[d], loops.out[loops.rank] = out[d];
    ++loops.rank;
  }
  return loops;
}

}  // namespace

const char* binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "add";
    case BinaryOp::kSub: return "sub";
    case BinaryOp::kMul: return "mul";
    case BinaryOp::kDiv: return "div";
    case BinaryOp::kMax: return "maximum";
    case BinaryOp::kMin: return "minimum";
  }
  return "unknown";
}

namespace {

// TF's op behind each (its name in TF's errors): a / b is RealDiv on floats, Div on integers.
const char* tf_op_name(BinaryOp op, DType type) {
  switch (op) {
    case BinaryOp::kAdd: return "AddV2";
    case BinaryOp::kSub: return "Sub";
    case BinaryOp::kMul: return "Mul";
    case BinaryOp::kDiv: return type == DType::kI32 || type == DType::kU32 ? "Div" : "RealDiv";
    case BinaryOp::kMax: return "Maximum";
    case BinaryOp::kMin: return "Minimum";
  }
  return "unknown";
}

}  // namespace

Result<Shape> broadcast_shape(const Shape& a, const Shape& b) {
  const unsigned rank = a.rank > b.rank ? a.rank : b.rank;
  int64_t dims[kMaxRank];
  for (unsigned d = 0; d < rank; ++d) {
    const int64_t x = d + a.rank >= rank ? a.dims[d + a.rank - rank] : 1;
    const int64_t y = d + b.rank >= rank ? b.dims[d + b.rank - rank] : 1;
    if (x != y && x != 1 && y != 1)
      return invalid_argument("Incompatible shapes: {} vs. {}", a.sizes(), b.sizes());
    dims[d] = x == 1 ? y : x;
  }
  Shape shape = RT_TRY(Shape::make(Span<const int64_t>(dims, rank)));
  if (has_padding(a) || has_padding(b)) RT_RETURN_IF_ERROR(broadcast_real_sizes(a, b, shape));
  return shape;
}

Status binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  if (a.dtype != b.dtype) return input_type_error(tf_op_name(op, a.dtype), 1, a.dtype, b.dtype);  // TF's text
  if (out.dtype != a.dtype)
    return invalid_argument("{}: the output is {}, the operands {}", binary_op_name(op), dtype_name(out.dtype),
                            dtype_name(a.dtype));
  const DType type = a.dtype;
  if (type != DType::kF32 && type != DType::kF64 && type != DType::kBF16 && type != DType::kF16 &&
      type != DType::kI32 && type != DType::kU32)
    return invalid_argument("{} does not support dtype {}", binary_op_name(op), dtype_name(type));
  Result<Shape> shape = broadcast_shape(a.shape, b.shape);
  if (!shape) return shape.status();
  if (!(*shape == out.shape))
    return invalid_argument("{}: output shape {} is not the broadcast shape {}", binary_op_name(op), out.shape.sizes(),
                            shape->sizes());
  const unsigned rank = out.shape.rank;
  int64_t a_strides[kMaxRank] = {}, b_strides[kMaxRank] = {}, out_strides[kMaxRank] = {};
  broadcast_strides(a, rank, a_strides);
  broadcast_strides(b, rank, b_strides);
  broadcast_strides(out, rank, out_strides);
  if (out.shape.num_elements() == 0) return Status::ok();
  const Loops loops = coalesced_loops(out.shape, a_strides, b_strides, out_strides);
  // Row by row along the last loop (the fast path when it can), an odometer over the others.
  const unsigned last = loops.rank == 0 ? 0 : loops.rank - 1;
  const int64_t row_length = loops.rank == 0 ? 1 : loops.dims[last];
  const int64_t size = static_cast<int64_t>(out.element_size());
  const bool fast = loops.rank == 0 || (loops.out[last] == size && (loops.a[last] == 0 || loops.a[last] == size) &&
                                        (loops.b[last] == 0 || loops.b[last] == size));
  int64_t index[kMaxRank] = {};
  const uint8_t* pa = a.data;
  const uint8_t* pb = b.data;
  uint8_t* po = out.data;
  for (;;) {
    if (!fast || !binary_row(op, type, pa, loops.rank != 0 && loops.a[last] != 0, pb, loops.rank != 0 && loops.b[last] != 0,
                             po, row_length))
      for (int64_t i = 0; i < row_length; ++i)
        apply_element(op, type, pa + i * loops.a[last], pb + i * loops.b[last], po + i * loops.out[last]);
    // Odometer over the loops before the last, carrying into earlier ones.
    unsigned d = last;
    for (;;) {
      if (d == 0) return Status::ok();
      --d;
      if (++index[d] < loops.dims[d]) {
        pa += loops.a[d];
        pb += loops.b[d];
        po += loops.out[d];
        break;
      }
      pa -= loops.a[d] * (index[d] - 1);
      pb -= loops.b[d] * (index[d] - 1);
      po -= loops.out[d] * (index[d] - 1);
      index[d] = 0;
    }
  }
}

}  // namespace rt
