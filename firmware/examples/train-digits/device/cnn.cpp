// train-digits: the CNN's forward and backward pass on one replica's shard (model.hpp). The
// convolution runs on the MXU (rt::conv2d); its filter gradient is the product of the input's
// 3x3 patches (im2col, zeros outside the image as SAME padding gives) with the convolution's output
// gradient, on the MXU too.
#include "model.hpp"

namespace train_digits {

using namespace rt;

namespace {

constexpr int64_t kSide = 8, kFilters = 8, kTaps = 9;

// [rows * 64, 9]: row (n, i, j) holds the 3x3 neighbourhood of pixel (i, j) of image n, tap
// kh * 3 + kw, zero where it falls outside the image.
Result<Tensor> patches(Arena& arena, const Tensor& x) {
  const int64_t rows = x.shape.dims[0];
  const int64_t dims[] = {rows * kSide * kSide, kTaps};
  const Tensor out = RT_TRY(arena.allocate_tensor(DType::kF32, RT_TRY(Shape::make(dims)), "patches"));
  for (int64_t n = 0; n < rows; ++n)
    for (int64_t i = 0; i < kSide; ++i)
      for (int64_t j = 0; j < kSide; ++j)
        for (int64_t kh = 0; kh < 3; ++kh)
          for (int64_t kw = 0; kw < 3; ++kw) {
            const int64_t r = i + kh - 1, c = j + kw - 1;
            const bool inside = r >= 0 && r < kSide && c >= 0 && c < kSide;
            out.at<float>((n * kSide + i) * kSide + j, kh * 3 + kw) = inside ? x.at<float>(n, r * kSide + c) : 0.0f;
          }
  return out;
}

// The convolution, whole or split over the replica's logical devices (same bits either way).
Result<Tensor> convolve(Arena& arena, const Tensor& image, const Tensor& filter, unsigned logical_cores) {
  const Conv2dOptions same{.padding = ConvPadding::kSame};
  if (logical_cores == 1) return conv2d(arena, image, filter, same);
  const int64_t halves[] = {1, 2, 1, 1}, quarters[] = {1, 2, 2, 1};
  const Span<const int64_t> partition(logical_cores == 2 ? halves : quarters, 4);
  const tpu::ShardedTensor tiles = RT_TRY(tpu::split_to_logical_devices(image, partition));
  const tpu::ShardedTensor out = RT_TRY(tpu::spmd::conv2d(tiles, tpu::replicate_to_logical_devices(filter), same));
  return tpu::gather_from_logical_devices(out);
}

}  // namespace

Result<Gradients> cnn_gradients(Arena& arena, const Params& w, const Batch& batch, int64_t global_batch,
                                unsigned logical_cores) {
  if (logical_cores != 1 && logical_cores != 2 && logical_cores != 4)
    return invalid_argument("train-digits: the CNN splits its image over 1, 2 or 4 logical cores, not {}", logical_cores);
  const Tensor& x = batch.images;
  const int64_t rows = x.shape.dims[0];
  const Tensor image = RT_TRY(reshape(arena, x, {rows, kSide, kSide, 1}));
  const Tensor z = RT_TRY(add(arena, RT_TRY(convolve(arena, image, w.w1, logical_cores)), w.b1));  // [rows, 8, 8, 8]
  const Tensor flat = RT_TRY(reshape(arena, RT_TRY(relu(arena, z)), {rows, kSide * kSide * kFilters}));
  const Tensor logits = RT_TRY(add(arena, RT_TRY(matmul(arena, flat, w.w2)), w.b2));
  Gradients g;
  const Tensor dlogits = RT_TRY(softmax_cross_entropy(arena, logits, batch.labels, global_batch, g));
  g.params.w2 = RT_TRY(matmul(arena, RT_TRY(transpose(arena, flat)), dlogits));
  g.params.b2 = RT_TRY(reduce_sum(arena, dlogits, {0}));
  const Tensor dflat = RT_TRY(matmul(arena, dlogits, RT_TRY(transpose(arena, w.w2))));  // z's layout, flattened
  relu_backward(dflat, z);
  const Tensor dz = RT_TRY(reshape(arena, dflat, {rows * kSide * kSide, kFilters}));
  g.params.b1 = RT_TRY(reduce_sum(arena, dz, {0}));
  const Tensor dfilter = RT_TRY(matmul(arena, RT_TRY(transpose(arena, RT_TRY(patches(arena, x)))), dz));  // [9, 8]
  g.params.w1 = RT_TRY(reshape(arena, dfilter, {3, 3, 1, kFilters}));
  return g;
}

}  // namespace train_digits
