// softmax / log_softmax: argument checks with TF's texts, a walk over the rows of the chosen axis
// and the three passes per row (max, sum of exponentials, outputs) in the order softmax.hpp defines,
// over the real part of the axis (its padding is written 0).
#include "softmax.hpp"

#include "float_math.hpp"
#include "runtime/dtype/half.hpp"
#include "hal/support/unaligned.hpp"

namespace rt {
namespace {

enum class Kind : uint8_t { kSoftmax, kLogSoftmax };

const char* kind_name(Kind kind) { return kind == Kind::kSoftmax ? "softmax" : "log_softmax"; }

struct F32Storage {
  static float load(const uint8_t* p) { return load_unaligned<float>(p); }
  static void store(uint8_t* p, float value) { store_unaligned(p, canonical_nan_if_nan(value)); }
};
struct BF16Storage {
  static float load(const uint8_t* p) { return to_float(BFloat16{load_unaligned<uint16_t>(p)}); }
  static void store(uint8_t* p, float value) { store_unaligned(p, to_bfloat16(canonical_nan_if_nan(value)).bits); }
};
struct F16Storage {
  static float load(const uint8_t* p) { return to_float(Float16{load_unaligned<uint16_t>(p)}); }
  static void store(uint8_t* p, float value) { store_unaligned(p, to_float16(canonical_nan_if_nan(value)).bits); }
};

// One row: `length` real elements `in_stride` / `out_stride` bytes apart, then `padding` padded
// ones (the axis's size minus its real size: 0 unless replicate padded the axis).
struct Row {
  const uint8_t* in;
  uint8_t* out;
  int64_t length;
  int64_t in_stride;
  int64_t out_stride;
  int64_t padding;
};

// The padded outputs of a row are 0 (dynamic_shape.hpp).
template <class Storage>
void zero_padding(const Row& row) {
  for (int64_t i = row.length; i < row.length + row.padding; ++i) Storage::store(row.out + i * row.out_stride, 0.0f);
}

template <class Storage>
void softmax_row(Kind kind, const Row& row) {
  if (row.padding != 0) zero_padding<Storage>(row);
  if (row.length == 0) return;
  const auto x = [&row](int64_t i) { return Storage::load(row.in + i * row.in_stride); };
  float max = x(0);
  for (int64_t i = 1; i < row.length; ++i) {
    const float value = x(i);
    max = (max > value || max != max) ? max : value;
  }
  float sum = exp_f32(x(0) - max);
  for (int64_t i = 1; i < row.length; ++i) sum = sum + exp_f32(x(i) - max);
  // The exponentials are recomputed rather than stored (no scratch memory; exp_f32 is deterministic).
  if (kind == Kind::kSoftmax) {
    for (int64_t i = 0; i < row.length; ++i) Storage::store(row.out + i * row.out_stride, exp_f32(x(i) - max) / sum);
  } else {
    const float log_sum = log_f32(sum);
    for (int64_t i = 0; i < row.length; ++i) Storage::store(row.out + i * row.out_stride, (x(i) - max) - log_sum);
  }
}

// Calls visit(row) for every row along `axis`, the other indices in row-major order.
template <class Visit>
void for_each_row(const Tensor& in, const Tensor& out, unsigned axis, Visit visit) {
  if (in.shape.num_elements() == 0) return;
  int64_t dims[kMaxRank], in_strides[kMaxRank], out_strides[kMaxRank];
  unsigned rank = 0;
  for (unsigned d = 0; d < in.shape.rank; ++d) {
    if (d == axis) continue;
    dims[rank] = in.shape.dims[d];
    in_strides[rank] = in.strides[d] * static_cast<int64_t>(in.element_size());
    out_strides[rank++] = out.strides[d] * static_cast<int64_t>(out.element_size());
  }
  Row row{in.data,
          out.data,
          in.shape.real[axis],
          in.strides[axis] * static_cast<int64_t>(in.element_size()),
          out.strides[axis] * static_cast<int64_t>(out.element_size()),
          in.shape.dims[axis] - in.shape.real[axis]};
  int64_t index[kMaxRank] = {};
  for (;;) {
    visit(row);
    unsigned d = rank;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++index[d] < dims[d]) {
        row.in += in_strides[d];
        row.out += out_strides[d];
        break;
      }
      row.in -= in_strides[d] * (dims[d] - 1);
      row.out -= out_strides[d] * (dims[d] - 1);
      index[d] = 0;
    }
  }
}

// Validates the arguments as TF does and resolves `axis` to [0, rank).
Result<unsigned> resolve_axis(Kind kind, const Tensor& logits, const Tensor& out, int axis) {
  const char* name = kind_name(kind);
  if (logits.dtype != out.dtype)
    return invalid_argument("{}: input dtype {} and output dtype {} differ", name, dtype_name(logits.dtype),
                            dtype_name(out.dtype));
  if (logits.dtype != DType::kF32 && logits.dtype != DType::kBF16 && logits.dtype != DType::kF16)
    return invalid_argument("{} does not support dtype {} (supported: float32, bfloat16, float16)", name,
                            dtype_name(logits.dtype));
  const int rank = logits.shape.rank;
  const bool last = axis == -1 || axis == rank - 1;
  if (last && rank == 0) return invalid_argument("logits must have >= 1 dimension, got {}", logits.shape.sizes());
  if (axis < -rank || axis >= rank)
    return invalid_argument(
        "`dim` must be in the range [{}, {}) where {} is the number of dimensions in the input. Received: dim={}",
        -rank, rank, rank, axis);
  if (!(logits.shape == out.shape))
    return invalid_argument("{}: input shape {} and output shape {} differ", name, logits.shape.sizes(),
                            out.shape.sizes());
  return static_cast<unsigned>(axis < 0 ? axis + rank : axis);
}

Status softmax_of_kind(Kind kind, const Tensor& logits, const Tensor& out, int axis) {
  Result<unsigned> resolved = resolve_axis(kind, logits, out, axis);
  if (!resolved) return resolved.status();
  switch (logits.dtype) {
    case DType::kF32: for_each_row(logits, out, *resolved, [kind](const Row& row) { softmax_row<F32Storage>(kind, row); }); break;
    case DType::kBF16: for_each_row(logits, out, *resolved, [kind](const Row& row) { softmax_row<BF16Storage>(kind, row); }); break;
    case DType::kF16: for_each_row(logits, out, *resolved, [kind](const Row& row) { softmax_row<F16Storage>(kind, row); }); break;
    default: break;  // rejected above
  }
  return Status::ok();
}

}  // namespace

Status softmax(const Tensor& logits, const Tensor& out, int axis) { return softmax_of_kind(Kind::kSoftmax, logits, out, axis); }

Status log_softmax(const Tensor& logits, const Tensor& out, int axis) {
  return softmax_of_kind(Kind::kLogSoftmax, logits, out, axis);
}

}  // namespace rt
