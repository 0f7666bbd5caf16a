// train-digits: the three models (an MLP, a small CNN and a wide MLP), their weights' shapes and
// learning rates, and the forward and backward pass of one replica on its shard of a global batch.
//   MLP: x[b, 64] -> relu(x w1 + b1)[b, 128] -> logits = h w2 + b2 [b, 10]
//   wide MLP: the same with 1024 hidden units (eight times the MXU work: its share of the step shows)
//   CNN: x as [b, 8, 8, 1] -> relu(conv3x3 SAME(x, w1[3, 3, 1, 8]) + b1) [b, 8, 8, 8] -> flattened
//        [b, 512] -> logits = h w2[512, 10] + b2
// Both end in softmax cross-entropy; the gradients are those of the loss summed over the global
// batch divided by its size (the run's, prepare_digits.py --batch: 32 images by default, 256 for
// the wide MLP), so summing the replicas' gradients gives the batch's.
#pragma once
#include "firmware/tpu_pod.hpp"

namespace train_digits {

inline constexpr int64_t kPixels = 64, kClasses = 10, kWideHidden = 1024;

enum class ModelKind : int32_t { kMlp = 0, kCnn = 1, kWideMlp = 2 };

struct ModelSpec {
  const char* name;
  float learning_rate;
  unsigned ranks[4];
  int64_t dims[4][4];  // w1, b1, w2, b2 (Params' order)
};

// The spec of `kind`, or an error for a number that is no model.
rt::Result<const ModelSpec*> model_spec(int32_t kind);

// The model's weights, and as well their gradients (a structure: nest.hpp).
struct Params {
  rt::Tensor w1, b1, w2, b2;
};

// One replica's shard of a global batch: images [rows, 64] float32, labels [rows] int32.
struct Batch {
  rt::Tensor images, labels;
};

// A replica's gradients of the global batch's summed loss / its size, and its shard's loss sum and
// correct count.
struct Gradients {
  Params params;
  float loss_sum = 0;
  float correct = 0;
};

rt::Result<Gradients> mlp_gradients(rt::Arena& arena, const Params& weights, const Batch& batch, int64_t global_batch);
// With `logical_cores` > 1 (a replica spanning 2 or 4 cores) the convolution runs model parallel:
// the image split [1, 2, 1, 1] or [1, 2, 2, 1] over the replica's logical devices
// (split_to_logical_devices), each convolving its tile with the halo its neighbours send, the output
// gathered again; the rest runs on every logical core alike. The result is the same bits as with one.
rt::Result<Gradients> cnn_gradients(rt::Arena& arena, const Params& weights, const Batch& batch, int64_t global_batch,
                                    unsigned logical_cores = 1);

// grad * relu'(pre), in place: zero where pre was not positive (same shape and element order).
void relu_backward(const rt::Tensor& grad, const rt::Tensor& pre);

// The logits' gradient (softmax - one_hot(labels)) / global_batch and the shard's loss sum and
// correct count, written into `gradients`; a label outside 0..9 is TF's error naming it.
rt::Result<rt::Tensor> softmax_cross_entropy(rt::Arena& arena, const rt::Tensor& logits, const rt::Tensor& labels,
                                             int64_t global_batch, Gradients& gradients);

}  // namespace train_digits
