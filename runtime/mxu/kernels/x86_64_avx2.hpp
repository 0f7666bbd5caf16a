// The x86-64 AVX2 + FMA3 float32 kernel (x86_64_avx2.cpp), for x86_64.cpp's list of this CPU's kernels.
#pragma once
#include "runtime/mxu/float_kernel.hpp"

namespace rt {

extern const FloatKernel kAvx2FloatKernel;  // "avx2-6x16": run and run_block

}  // namespace rt
