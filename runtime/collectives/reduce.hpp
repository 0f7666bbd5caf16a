// Element-wise reduction kernels with one defined arithmetic order: contributions are combined
// left to right in group order, ((x0 op x1) op x2) ..., in an accumulator type:
//   float32, bfloat16, float16 -> float32 (16-bit types round once, to nearest even, at the end)
//   float64 -> float64;  int32, uint32 -> 32-bit two's complement (sums wrap)
// max/min propagate NaN. mean = sum / group size (integers: truncated toward zero).
// Every algorithm and board calls exactly these, so results are bit-identical everywhere.
#pragma once
#include "runtime/dtype/dtype.hpp"
#include "hal/support/status.hpp"
#include "runtime/pod/pod_devices.hpp"

namespace rt {

enum class ReduceOp : uint8_t { kSum, kMean, kMax, kMin };
const char* reduce_op_name(ReduceOp op);

// Whether all_reduce supports `type` (TF: float16, bfloat16, float32, float64, int32, uint32).
bool reducible(DType type);
size_t accumulator_size(DType type);

// accumulator[first .. first+count) = elements
void reduce_init(DType type, const uint8_t* elements, void* accumulator, size_t first, size_t count);
// accumulator[i] = accumulator[i] op element[i]
void reduce_combine(ReduceOp op, DType type, const uint8_t* elements, void* accumulator, size_t first, size_t count);
// out[i] = finish(accumulator[i]) (mean division, rounding to 16-bit types)
void reduce_finish(ReduceOp op, DType type, const void* accumulator, uint8_t* out, size_t count, unsigned contributions);

// outputs[k][i] = finish(inputs[0][i] op inputs[1][i] op ... op inputs[n-1][i]) for i < count and
// every k < output_count: for float32/float64/int32/uint32 in one vectorised pass (every input read
// and every output written once per element), for the 16-bit floats block by block with an
// L1-resident float accumulator. Either way the result is the scalar definition above, element by
// element, whatever the alignment. Each element (block) is written only after all inputs of it were
// read, so an output may be the same memory as one of the inputs. `stream`: write the outputs with
// non-temporal stores where the target has them (for results much larger than the caches; the
// kernel fences them before it returns).
// n and output_count are at most kMaxReduceOperands.
void reduce_many(ReduceOp op, DType type, const uint8_t* const* inputs, unsigned n, uint8_t* const* outputs,
                 unsigned output_count, size_t count, bool stream = false);
// A board reduces at most its own cores' inputs (plus a running result), but tpu reduces every
// member of a group that spans a pod in one call (pod_members.cpp: one rounding for mean and the
// 16-bit floats), so the kernels take a whole pod's devices.
inline constexpr unsigned kMaxReduceOperands = kMaxPodDevices;
static_assert(kMaxReduceOperands >= 2 * hal::kMaxCores, "a board's members plus a running result");

}  // namespace rt
