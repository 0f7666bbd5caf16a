// train-digits: softmax cross-entropy, the relu gradient and the model specs (model.hpp).
#include "model.hpp"

namespace train_digits {

using namespace rt;

Result<const ModelSpec*> model_spec(int32_t kind) {
  static const ModelSpec kMlp{"mlp", 0.5f, {2, 1, 2, 1}, {{kPixels, 128}, {128}, {128, kClasses}, {kClasses}}};
  static const ModelSpec kCnn{"cnn", 0.2f, {4, 1, 2, 1}, {{3, 3, 1, 8}, {8}, {kPixels * 8, kClasses}, {kClasses}}};
  static const ModelSpec kWide{"mlp-wide", 0.2f, {2, 1, 2, 1},
                               {{kPixels, kWideHidden}, {kWideHidden}, {kWideHidden, kClasses}, {kClasses}}};
  if (kind == static_cast<int32_t>(ModelKind::kMlp)) return &kMlp;
  if (kind == static_cast<int32_t>(ModelKind::kCnn)) return &kCnn;
  if (kind == static_cast<int32_t>(ModelKind::kWideMlp)) return &kWide;
  return invalid_argument("train-digits: model {} is none of 0 (mlp), 1 (cnn), 2 (mlp-wide)", kind);
}

void relu_backward(const Tensor& grad, const Tensor& pre) {
  const Span<float> g = grad.values<float>();
  const Span<float> p = pre.values<float>();
  for (size_t i = 0; i < g.size(); ++i)
    if (!(p[i] > 0.0f)) g[i] = 0.0f;
}

Result<Tensor> softmax_cross_entropy(Arena& arena, const Tensor& logits, const Tensor& labels, Gradients& gradients) {
  const Tensor log_p = RT_TRY(log_softmax(arena, logits));
  const Tensor dlogits = RT_TRY(softmax(arena, logits));
  for (int64_t i = 0; i < logits.shape.dims[0]; ++i) {
    const int32_t label = labels.at<int32_t>(i);
    if (label < 0 || label >= kClasses) return invalid_argument("train-digits: label {} of row {} is not a digit", label, i);
    gradients.loss_sum -= log_p.at<float>(i, label);
    int64_t best = 0;
    for (int64_t c = 1; c < kClasses; ++c)
      if (logits.at<float>(i, c) > logits.at<float>(i, best)) best = c;
    gradients.correct += best == label ? 1.0f : 0.0f;
    dlogits.at<float>(i, label) -= 1.0f;
  }
  return mul(arena, dlogits, 1.0f / static_cast<float>(kBatch));
}

}  // namespace train_digits
