// train-digits: the MLP's forward and backward pass on one replica's shard (model.hpp).
#include "model.hpp"

namespace train_digits {

using namespace rt;

Result<Gradients> mlp_gradients(Arena& arena, const Params& w, const Batch& batch, int64_t global_batch) {
  const Tensor& x = batch.images;
  const Tensor h_pre = RT_TRY(add(arena, RT_TRY(matmul(arena, x, w.w1)), w.b1));
  const Tensor h = RT_TRY(relu(arena, h_pre));
  const Tensor logits = RT_TRY(add(arena, RT_TRY(matmul(arena, h, w.w2)), w.b2));
  Gradients g;
  const Tensor dlogits = RT_TRY(softmax_cross_entropy(arena, logits, batch.labels, global_batch, g));
  g.params.w2 = RT_TRY(matmul(arena, h, dlogits, {.transpose_a = true}));
  g.params.b2 = RT_TRY(reduce_sum(arena, dlogits, {0}));
  const Tensor dh = RT_TRY(matmul(arena, dlogits, w.w2, {.transpose_b = true}));
  relu_backward(dh, h_pre);
  g.params.w1 = RT_TRY(matmul(arena, x, dh, {.transpose_a = true}));
  g.params.b1 = RT_TRY(reduce_sum(arena, dh, {0}));
  return g;
}

}  // namespace train_digits
