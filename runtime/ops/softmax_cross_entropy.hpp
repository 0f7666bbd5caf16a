// tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits) as TF's kernel computes it
// (SparseSoftmaxXentWithLogits): for logits [batch, classes] float32 and labels [batch] int32, per row
//   loss_i     = -log_softmax(logits_i)[label_i]
//   backprop_i = softmax(logits_i) - one_hot(label_i)     (the loss's gradient with respect to logits)
// from one max and one sum of exponentials per row, in softmax.hpp's order, so loss and backprop are
// the same bits as log_softmax and softmax computed apart (and each exponential is taken once: a
// training step's loss costs a third of the exponentials).
// A label outside [0, classes) is TF's error: "Received a label value of 10 which is outside the
// valid range of [0, 10).  Label values: 1 10 3".
#pragma once
#include "runtime/tensor/arena.hpp"

namespace rt {

struct SoftmaxCrossEntropy {
  Tensor loss;      // [batch]
  Tensor backprop;  // [batch, classes]
};

Result<SoftmaxCrossEntropy> sparse_softmax_cross_entropy_with_logits(Arena& arena, const Tensor& labels,
                                                                     const Tensor& logits);

}  // namespace rt
