// The uneven-shards suite's inputs, their padded views and the unsplit references
// (uneven_cases.cpp runs the split ops; uneven_inputs.cpp makes the tensors and checks results).
#pragma once
#include "suite.hpp"

namespace model_parallel_test {

// X, Y, S: [D, 6] padded rows; W, K: [4, D] padded columns; B6D: [6, D] padded columns; BD5Padded:
// BD5's data with padded rows. Bias [6], Z [D, 6], B65 [6, 5], BD5 [D, 5], A46 [4, 6]: unpadded.
// S, K, B65, BD5, A46, B6D hold small integers (every product and sum exact).
enum UnevenArg { kX, kY, kBias, kZ, kS, kW, kK, kB65, kBD5, kBD5Padded, kA46, kB6D, kNumUnevenArgs };
enum UnevenOutput {
  kRoundTrip, kExp, kAddMul, kSubFull, kSumRows, kMeanRows, kMaxAll, kMinColumns, kSoftmax, kLogSoftmax,
  kSoftmaxRows, kMatmulRows, kMatmulInner, kMatmulColumns, kMatmulBoth, kNumUnevenOutputs
};

// N logical devices, the padded size D = 2N + 1 and the real size R = min(N + 2, D - 1).
struct UnevenSizes {
  int64_t n, d, r;
};
UnevenSizes uneven_sizes(unsigned n);

// The arguments as a replica sees them: the padded dimensions with real size R.
struct UnevenArgs {
  rt::Tensor args[kNumUnevenArgs];
  const rt::Tensor& operator[](unsigned k) const { return args[k]; }
};
UnevenArgs with_real_sizes(rt::tpu::ReplicaArgs args, const UnevenSizes& sizes);

// The replicate inputs (on core 0, in hbm), NaN in the padding of X, S, W and K.
struct UnevenInputs {
  rt::Tensor args[kNumUnevenArgs];
};
rt::Result<UnevenInputs> make_uneven_inputs(const UnevenSizes& sizes);

// Every output's real sizes and real elements against the unsplit op on the real data.
rt::Status check_uneven_outputs(const rt::tpu::ReplicaOutputs& outputs, const UnevenInputs& in,
                                const UnevenSizes& sizes);

}  // namespace model_parallel_test
