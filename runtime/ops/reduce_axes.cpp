// Axis validation, the reduction plan (kept and reduced axes with their byte strides, reduced axes
// cut to their real sizes) and the per-dtype accumulators (see reduce_axes.hpp for the
// accumulation order and numerics).
#include "reduce_axes.hpp"

#include "float_math.hpp"
#include "runtime/dtype/half.hpp"
#include "hal/support/unaligned.hpp"

namespace rt {
namespace {

// Marks the axes `axes` names in `reduced` (rank entries, all false on entry), with TF's errors.
Status mark_reduced_axes(unsigned rank, Span<const int> axes, bool* reduced) {
  const int signed_rank = static_cast<int>(rank);
  for (const int axis : axes) {
    if (axis < -signed_rank || axis >= signed_rank)
      return invalid_argument("Invalid reduction dimension ({} for input with {} dimension(s)", axis, rank);
    const int index = axis < 0 ? axis + signed_rank : axis;
    if (reduced[index])
      return invalid_argument("Invalid reduction arguments: Axes contains duplicate dimension: {}", index);
    reduced[index] = true;
  }
  return Status::ok();
}

// The input's axes split into kept ones (one per output element index) and reduced ones, in the
// input's order, with byte strides.
struct ReductionPlan {
  unsigned kept_rank = 0;
  int64_t kept_dims[kMaxRank] = {};
  int64_t kept_in_strides[kMaxRank] = {};
  int64_t kept_out_strides[kMaxRank] = {};
  unsigned reduced_rank = 0;
  int64_t reduced_dims[kMaxRank] = {};
  int64_t reduced_in_strides[kMaxRank] = {};
  int64_t count = 1;  // input elements per output element
};

ReductionPlan plan_reduction(const Tensor& in, const bool* reduced, bool keepdims, const Tensor& out) {
  ReductionPlan plan;
  const int64_t in_size = static_cast<int64_t>(in.element_size());
  const int64_t out_size = static_cast<int64_t>(out.element_size());
  unsigned out_axis = 0;
  for (unsigned d = 0; d < in.shape.rank; ++d) {
    if (reduced[d]) {  // only the real elements (a prefix of the axis) are reduced
      plan.reduced_dims[plan.reduced_rank] = in.shape.real[d];
      plan.reduced_in_strides[plan.reduced_rank++] = in.strides[d] * in_size;
      plan.count *= in.shape.real[d];
      if (keepdims) ++out_axis;
      continue;
    }
    plan.kept_dims[plan.kept_rank] = in.shape.dims[d];
    plan.kept_in_strides[plan.kept_rank] = in.strides[d] * in_size;
    plan.kept_out_strides[plan.kept_rank++] = out.strides[out_axis++] * out_size;
  }
  return plan;
}

// Calls visit(offset_a, offset_b) for every index of `dims` in row-major order (the last axis
// fastest), offsets being the dot products with the two byte-stride arrays. Nothing if a size is 0.
template <class Visit>
void for_each_index(unsigned rank, const int64_t* dims, const int64_t* strides_a, const int64_t* strides_b,
                    Visit&& visit) {
  for (unsigned d = 0; d < rank; ++d)
    if (dims[d] == 0) return;
  if (rank == 0) {
    visit(int64_t{0}, int64_t{0});
    return;
  }
  int64_t index[kMaxRank] = {};
  int64_t a = 0, b = 0;
  const unsigned last = rank - 1;
  for (;;) {
    for (int64_t i = 0; i < dims[last]; ++i) visit(a + i * strides_a[last], b + i * strides_b[last]);
    unsigned d = last;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++index[d] < dims[d]) {
        a += strides_a[d];
        b += strides_b[d];
        break;
      }
      a -= strides_a[d] * (dims[d] - 1);
      b -= strides_b[d] * (dims[d] - 1);
      index[d] = 0;
    }
  }
}

template <class Acc>
Acc combine_float(ReduceAxesOp op, Acc acc, Acc x) {
  switch (op) {
    case ReduceAxesOp::kSum: case ReduceAxesOp::kMean: return acc + x;
    case ReduceAxesOp::kProd: return acc * x;
    case ReduceAxesOp::kMax: return (acc > x || acc != acc) ? acc : x;
    case ReduceAxesOp::kMin: return (acc < x || acc != acc) ? acc : x;
  }
  return acc;
}

template <class Int>
Int combine_int(ReduceAxesOp op, Int acc, Int x) {
  using Unsigned = make_unsigned_t<Int>;
  switch (op) {
    case ReduceAxesOp::kSum: case ReduceAxesOp::kMean:
      return static_cast<Int>(static_cast<Unsigned>(static_cast<Unsigned>(acc) + static_cast<Unsigned>(x)));
    case ReduceAxesOp::kProd:
      return static_cast<Int>(static_cast<Unsigned>(static_cast<Unsigned>(acc) * static_cast<Unsigned>(x)));
    case ReduceAxesOp::kMax: return acc > x ? acc : x;
    case ReduceAxesOp::kMin: return acc < x ? acc : x;
  }
  return acc;
}

// Per-dtype accumulation: Acc, load (element -> Acc), combine, the result of a non-empty
// reduction (mean's division), the identity of an empty one, and store (Acc -> element).
template <class Float>
struct FloatAccumulator {
  using Acc = Float;
  static Acc combine(ReduceAxesOp op, Acc acc, Acc x) { return combine_float(op, acc, x); }
  static Acc finish(ReduceAxesOp op, Acc acc, int64_t count) {
    return op == ReduceAxesOp::kMean ? acc / static_cast<Acc>(count) : acc;
  }
  static Acc identity(ReduceAxesOp op) {
    switch (op) {
      case ReduceAxesOp::kSum: return Acc(0);
      case ReduceAxesOp::kProd: return Acc(1);
      case ReduceAxesOp::kMax: return -__builtin_inf();
      case ReduceAxesOp::kMin: return __builtin_inf();
      case ReduceAxesOp::kMean: break;
    }
    return __builtin_nan("");  // 0 / 0
  }
};

struct F32 : FloatAccumulator<float> {
  static float load(const uint8_t* p) { return load_unaligned<float>(p); }
  static void store(uint8_t* p, float value) { store_unaligned(p, canonical_nan_if_nan(value)); }
};
struct F64 : FloatAccumulator<double> {
  static double load(const uint8_t* p) { return load_unaligned<double>(p); }
  static void store(uint8_t* p, double value) { store_unaligned(p, canonical_nan_if_nan(value)); }
};
struct BF16 : FloatAccumulator<float> {
  static float load(const uint8_t* p) { return to_float(BFloat16{load_unaligned<uint16_t>(p)}); }
  static void store(uint8_t* p, float value) { store_unaligned(p, to_bfloat16(canonical_nan_if_nan(value)).bits); }
};
struct F16 : FloatAccumulator<float> {
  static float load(const uint8_t* p) { return to_float(Float16{load_unaligned<uint16_t>(p)}); }
  static void store(uint8_t* p, float value) { store_unaligned(p, to_float16(canonical_nan_if_nan(value)).bits); }
};

template <class Int>
struct IntAccumulator {
  using Acc = Int;
  static Acc load(const uint8_t* p) { return load_unaligned<Int>(p); }
  static void store(uint8_t* p, Acc value) { store_unaligned(p, value); }
  static Acc combine(ReduceAxesOp op, Acc acc, Acc x) { return combine_int(op, acc, x); }
  static Acc finish(ReduceAxesOp op, Acc acc, int64_t count) {
    if (op != ReduceAxesOp::kMean) return acc;
    if constexpr (is_signed_v<Int>) return static_cast<Acc>(static_cast<int64_t>(acc) / count);  // truncates
    else return static_cast<Acc>(static_cast<uint64_t>(acc) / static_cast<uint64_t>(count));
  }
  static Acc identity(ReduceAxesOp op) {
    switch (op) {
      case ReduceAxesOp::kProd: return Acc(1);
      case ReduceAxesOp::kMax: return is_signed_v<Int> ? static_cast<Acc>(INT32_MIN) : Acc(0);
      case ReduceAxesOp::kMin: return is_signed_v<Int> ? static_cast<Acc>(INT32_MAX) : static_cast<Acc>(UINT32_MAX);
      case ReduceAxesOp::kSum: case ReduceAxesOp::kMean: break;
    }
    return Acc(0);
  }
};
struct I32 : IntAccumulator<int32_t> {};
struct U32 : IntAccumulator<uint32_t> {};

template <class Accumulator>
void reduce_typed(ReduceAxesOp op, const Tensor& in, const ReductionPlan& plan, const Tensor& out) {
  using Acc = typename Accumulator::Acc;
  const int64_t no_strides[kMaxRank] = {};
  for_each_index(plan.kept_rank, plan.kept_dims, plan.kept_in_strides, plan.kept_out_strides,
                 [&](int64_t in_offset, int64_t out_offset) {
                   const uint8_t* base = in.data + in_offset;
                   Acc acc = Accumulator::identity(op);
                   bool first = true;
                   for_each_index(plan.reduced_rank, plan.reduced_dims, plan.reduced_in_strides, no_strides,
                                  [&](int64_t offset, int64_t) {
                                    const Acc x = Accumulator::load(base + offset);
                                    acc = first ? x : Accumulator::combine(op, acc, x);
                                    first = false;
                                  });
                   if (!first) acc = Accumulator::finish(op, acc, plan.count);
                   Accumulator::store(out.data + out_offset, acc);
                 });
}

// float32 sum or mean over the leading axis into the trailing one (reduce_sum(x, {0}) of a matrix,
// a bias gradient): every output column accumulates the rows in ascending order, as reduce_typed
// does, but a row at a time so the compiler vectorizes across the columns. False (nothing written)
// for any other layout.
bool sum_rows_f32(ReduceAxesOp op, const Tensor& in, const ReductionPlan& plan, const Tensor& out) {
  if ((op != ReduceAxesOp::kSum && op != ReduceAxesOp::kMean) || plan.kept_rank != 1 || plan.reduced_rank != 1 ||
      plan.kept_in_strides[0] != 4 || plan.kept_out_strides[0] != 4 || plan.reduced_dims[0] == 0 ||
      plan.reduced_in_strides[0] != 4 * plan.kept_dims[0] || reinterpret_cast<uintptr_t>(in.data) % 4 != 0 ||
      reinterpret_cast<uintptr_t>(out.data) % 4 != 0 || in.data == out.data)
    return false;
  const int64_t rows = plan.reduced_dims[0], columns = plan.kept_dims[0];
  const float* x = reinterpret_cast<const float*>(in.data);
  // A chunk of columns at a time in a local array, which nothing else can point to, so its sums
  // stay in vector registers down all the rows (summing into `out` itself, the compiler must
  // assume every store may change the next row's input); full chunks with a constant count, which
  // the compiler unrolls into registers, the last one with its own.
  constexpr int64_t kChunk = 64;
  for (int64_t j0 = 0; j0 < columns; j0 += kChunk) {
    const int64_t width = columns - j0 < kChunk ? columns - j0 : kChunk;
    float sum[kChunk];
    for (int64_t j = 0; j < width; ++j) sum[j] = x[j0 + j];
    if (width == kChunk) {
      for (int64_t i = 1; i < rows; ++i)
        for (int64_t j = 0; j < kChunk; ++j) sum[j] += x[i * columns + j0 + j];
    } else {
      for (int64_t i = 1; i < rows; ++i)
        for (int64_t j = 0; j < width; ++j) sum[j] += x[i * columns + j0 + j];
    }
    for (int64_t j = 0; j < width; ++j) F32::store(out.data + 4 * (j0 + j), F32::finish(op, sum[j], plan.count));
  }
  return true;
}

bool reduce_supports(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF64 || dtype == DType::kBF16 || dtype == DType::kF16 ||
         dtype == DType::kI32 || dtype == DType::kU32;
}

}  // namespace

const char* reduce_axes_op_name(ReduceAxesOp op) {
  switch (op) {
    case ReduceAxesOp::kSum: return "reduce_sum";
    case ReduceAxesOp::kMean: return "reduce_mean";
    case ReduceAxesOp::kMax: return "reduce_max";
    case ReduceAxesOp::kMin: return "reduce_min";
    case ReduceAxesOp::kProd: return "reduce_prod";
  }
  return "unknown";
}

Result<Shape> reduced_shape(const Shape& input, Span<const int> axes, bool keepdims) {
  bool reduced[kMaxRank] = {};
  RT_RETURN_IF_ERROR(mark_reduced_axes(input.rank, axes, reduced));
  int64_t dims[kMaxRank], real[kMaxRank];
  unsigned rank = 0;
  for (unsigned d = 0; d < input.rank; ++d) {
    if (!reduced[d]) {
      real[rank] = input.real[d];
      dims[rank++] = input.dims[d];
    } else if (keepdims) {
      real[rank] = 1;
      dims[rank++] = 1;
    }
  }
  Shape shape = RT_TRY(Shape::make(Span<const int64_t>(dims, rank)));
  for (unsigned d = 0; d < rank; ++d) shape.real[d] = real[d];  // kept axes keep their real sizes
  return shape;
}

Status reduce_axes(ReduceAxesOp op, const Tensor& in, Span<const int> axes, bool keepdims, const Tensor& out) {
  const char* name = reduce_axes_op_name(op);
  if (in.dtype != out.dtype)
    return invalid_argument("{}: input dtype {} and output dtype {} differ", name, dtype_name(in.dtype),
                            dtype_name(out.dtype));
  if (!reduce_supports(in.dtype))
    return invalid_argument("{} does not support dtype {} (supported: float32, float64, bfloat16, float16, int32, uint32)",
                            name, dtype_name(in.dtype));
  Result<Shape> shape = reduced_shape(in.shape, axes, keepdims);
  if (!shape) return shape.status();
  if (!(*shape == out.shape))
    return invalid_argument("{}: output shape {} is not the reduced shape {}", name, out.shape.sizes(), shape->sizes());
  bool reduced[kMaxRank] = {};
  RT_RETURN_IF_ERROR(mark_reduced_axes(in.shape.rank, axes, reduced));
  const ReductionPlan plan = plan_reduction(in, reduced, keepdims, out);
  switch (in.dtype) {
    case DType::kF32:
      if (!sum_rows_f32(op, in, plan, out)) reduce_typed<F32>(op, in, plan, out);
      break;
    case DType::kF64: reduce_typed<F64>(op, in, plan, out); break;
    case DType::kBF16: reduce_typed<BF16>(op, in, plan, out); break;
    case DType::kF16: reduce_typed<F16>(op, in, plan, out); break;
    case DType::kI32: reduce_typed<I32>(op, in, plan, out); break;
    case DType::kU32: reduce_typed<U32>(op, in, plan, out); break;
    default: break;  // rejected above
  }
  return Status::ok();
}

}  // namespace rt
