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
  for (size_t i = 0; i < g.size(); ++i) g[i] = p[i] > 0.0f ? g[i] : 0.0f;  // a select, so it vectorizes
}

Result<Tensor> softmax_cross_entropy(Arena& arena, const Tensor& logits, const Tensor& labels, int64_t global_batch,
                                     Gradients& gradients) {
  // tf.nn.sparse_softmax_cross_entropy_with_logits: the rows' losses and softmax - one_hot in one pass.
  const SoftmaxCrossEntropy xent = RT_TRY(sparse_softmax_cross_entropy_with_logits(arena, labels, logits));
  const Span<const float> losses = xent.loss.values<float>();
  const Span<const float> rows = logits.values<float>();  // contiguous [rows, kClasses] (matmul's output + b2)
  const Span<const int32_t> label = labels.values<int32_t>();
  for (size_t i = 0; i < losses.size(); ++i) {
    gradients.loss_sum += losses[i];
    const float* row = rows.data() + i * kClasses;
    int64_t best = 0;  // the first largest logit (argmax); selects, not branches
    float best_logit = row[0];
    for (int64_t c = 1; c < kClasses; ++c) {
      const bool larger = row[c] > best_logit;
      best = larger ? c : best;
      best_logit = larger ? row[c] : best_logit;
    }
    gradients.correct += best == label[i] ? 1.0f : 0.0f;
  }
  return mul(arena, xent.backprop, 1.0f / static_cast<float>(global_batch));
}

}  // namespace train_digits
