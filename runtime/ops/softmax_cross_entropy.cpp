// sparse_softmax_cross_entropy_with_logits (softmax_cross_entropy.hpp): TF's checks and texts, then
// each row's shifted logits written into its backprop row, one vector pass of exponentials over
// them all, and each row's sum, softmax and loss.
#include "softmax_cross_entropy.hpp"

#include "float_math.hpp"
#include "hal/support/format.hpp"

namespace rt {
namespace {

Status check_operands(const Tensor& labels, const Tensor& logits) {
  if (logits.shape.rank != 2)
    return invalid_argument("logits must be 2-D, but got shape {}", logits.shape.sizes());
  if (labels.shape.rank != 1 || labels.shape.dims[0] != logits.shape.dims[0])
    return invalid_argument("logits and labels must have the same first dimension, got logits shape {} and labels "
                            "shape {}",
                            logits.shape.sizes(), labels.shape.sizes());
  if (logits.dtype != DType::kF32) return invalid_argument("logits must be float32, got {}", dtype_name(logits.dtype));
  if (labels.dtype != DType::kI32) return invalid_argument("labels must be int32, got {}", dtype_name(labels.dtype));
  const int64_t classes = logits.shape.dims[1];
  for (int64_t i = 0; i < labels.shape.dims[0]; ++i) {
    const int32_t label = labels.at<int32_t>(i);
    if (label < 0 || label >= classes) {
      FixedString<256> values;
      for (int64_t j = 0; j < labels.shape.dims[0]; ++j) format_to(values, "{}{}", j == 0 ? "" : " ", labels.at<int32_t>(j));
      return invalid_argument("Received a label value of {} which is outside the valid range of [0, {}).  Label values: {}",
                              label, classes, values.view());
    }
  }
  return Status::ok();
}

// One row, first half: x - max(x) into the backprop row (the exponentials' arguments), and the
// label's x - max into `loss` (finished by finish_row). The row is read through its strides (checked
// by the caller's shapes); the max has no branches (a select, and a NaN flag: a row holding a NaN
// has a NaN max, and every output of such a row ends up the canonical NaN whichever NaN it is).
void row_shifted(const Tensor& logits, int64_t i, int32_t label, float* backprop, float& loss) {
  const int64_t classes = logits.shape.dims[1], step = logits.strides[1];
  const float* row = reinterpret_cast<const float*>(logits.data) + i * logits.strides[0];
  float max = row[0];
  bool nan = max != max;
  for (int64_t j = 1; j < classes; ++j) {
    const float value = row[j * step];
    max = max > value ? max : value;
    nan |= value != value;
  }
  if (nan) max = __builtin_nanf("");
  for (int64_t j = 0; j < classes; ++j) backprop[j] = row[j * step] - max;
  loss = row[label * step] - max;
}

// Second half, once the row holds its exponentials: their sum, softmax - one_hot and the loss.
void finish_row(int64_t classes, int32_t label, float* backprop, float& loss) {
  float sum = backprop[0];
  for (int64_t j = 1; j < classes; ++j) sum = sum + backprop[j];
  for (int64_t j = 0; j < classes; ++j) backprop[j] = canonical_nan_if_nan(backprop[j] / sum);
  loss = -canonical_nan_if_nan(loss - log_f32(sum));
  backprop[label] -= 1.0f;
}

}  // namespace

Result<SoftmaxCrossEntropy> sparse_softmax_cross_entropy_with_logits(Arena& arena, const Tensor& labels,
                                                                     const Tensor& logits) {
  RT_RETURN_IF_ERROR(check_operands(labels, logits));
  const int64_t batch = logits.shape.dims[0], classes = logits.shape.dims[1];
  const int64_t loss_dims[] = {batch}, grad_dims[] = {batch, classes};
  SoftmaxCrossEntropy out{RT_TRY(arena.allocate_tensor(DType::kF32, RT_TRY(Shape::make(loss_dims)), "the loss")),
                          RT_TRY(arena.allocate_tensor(DType::kF32, RT_TRY(Shape::make(grad_dims)), "the backprop"))};
  if (classes == 0) return out;
  float* loss = out.loss.values<float>().data();
  float* backprop = out.backprop.values<float>().data();
  // Every row's arguments, then all the exponentials in one vector loop, then the rows' sums.
  for (int64_t i = 0; i < batch; ++i) row_shifted(logits, i, labels.at<int32_t>(i), backprop + i * classes, loss[i]);
  exp_f32_many(backprop, backprop, static_cast<size_t>(batch * classes));
  for (int64_t i = 0; i < batch; ++i) finish_row(classes, labels.at<int32_t>(i), backprop + i * classes, loss[i]);
  return out;
}

}  // namespace rt
