// contrib's MapOutput: what strategy.map(map_over, fn, args...) returns (r1.12's values.MapOutput),
// fn's result for each element of map_over, in order; get() is TF's get(). The results are views of
// tensors in the program's memory (the calling core's arena), held in an array there too: a
// PodMemoryScope around the call gives both back.
#pragma once
#include "runtime/tensor/tensor.hpp"
#include "hal/support/result.hpp"
#include "hal/support/span.hpp"

namespace rt::tpu {

class MapOutput {
 public:
  MapOutput() = default;
  MapOutput(const Tensor* results, unsigned count) : results_(results), count_(count) {}
  Span<const Tensor> get() const { return Span<const Tensor>(results_, count_); }

 private:
  const Tensor* results_ = nullptr;
  unsigned count_ = 0;
};

// `count` empty tensors in the program's memory, for map's results (null for none).
Result<Tensor*> allocate_map_results(size_t count);

}  // namespace rt::tpu
