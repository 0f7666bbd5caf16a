// train-digits: the MLP's forward and backward pass on one replica's shard (model.hpp).
#include "model.hpp"

namespace train_digits {

using namespace rt;

Result<Gradients> mlp_gradients(Arena& arena, const Tensor (&w)[4], const Tensor& x, const Tensor& labels) {
  const Tensor h_pre = RT_TRY(add(arena, RT_TRY(matmul(arena, x, w[0])), w[1]));
  const Tensor h = RT_TRY(relu(arena, h_pre));
  const Tensor logits = RT_TRY(add(arena, RT_TRY(matmul(arena, h, w[2])), w[3]));
  Gradients g;
  const Tensor dlogits = RT_TRY(softmax_cross_entropy(arena, logits, labels, g));
  g.of[2] = RT_TRY(matmul(arena, h, dlogits, {.transpose_a = true}));
  g.of[3] = RT_TRY(reduce_sum(arena, dlogits, {0}));
  const Tensor dh = RT_TRY(matmul(arena, dlogits, w[2], {.transpose_b = true}));
  relu_backward(dh, h_pre);
  g.of[0] = RT_TRY(matmul(arena, x, dh, {.transpose_a = true}));
  g.of[1] = RT_TRY(reduce_sum(arena, dh, {0}));
  return g;
}

}  // namespace train_digits
