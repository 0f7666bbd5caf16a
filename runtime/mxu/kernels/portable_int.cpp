// The portable int8 micro-kernel: 4 rows x 8 columns of int32 accumulators, k one step at a time
// (k_group 1), unsigned arithmetic so sums wrap mod 2^32 instead of overflowing. The kernel on
// targets without a hand-written one and the reference the others are tested against.
#include "runtime/mxu/int_kernel.hpp"

namespace rt {
namespace {

constexpr unsigned kRows = 4;
constexpr unsigned kColumns = 8;

void run_portable_int(const int16_t* a, const int16_t* w, unsigned k_steps, int32_t* c, int64_t c_row_stride,
                      bool accumulate) {
  uint32_t acc[kRows][kColumns];
#pragma GCC unroll 4
  for (unsigned r = 0; r < kRows; ++r)
#pragma GCC unroll 8
    for (unsigned j = 0; j < kColumns; ++j) acc[r][j] = accumulate ? static_cast<uint32_t>(c[r * c_row_stride + j]) : 0u;
  for (unsigned k = 0; k < k_steps; ++k, a += kRows, w += kColumns) {
#pragma GCC unroll 4
    for (unsigned r = 0; r < kRows; ++r) {
      const int32_t x = a[r];
#pragma GCC unroll 8
      for (unsigned j = 0; j < kColumns; ++j) acc[r][j] += static_cast<uint32_t>(x * static_cast<int32_t>(w[j]));
    }
  }
#pragma GCC unroll 4
  for (unsigned r = 0; r < kRows; ++r)
#pragma GCC unroll 8
    for (unsigned j = 0; j < kColumns; ++j) c[r * c_row_stride + j] = static_cast<int32_t>(acc[r][j]);
}

}  // namespace

const IntKernel kPortableIntKernel = {"portable-int-4x8", kRows, kColumns, 1, run_portable_int};

// x86-64 and AArch64 list their own kernels (x86_64_int.cpp, aarch64_int.cpp).
#if !defined(__x86_64__) && !defined(__aarch64__)
Span<const IntKernel* const> int_kernels_for_this_cpu() {
  static const IntKernel* const kernels[] = {&kPortableIntKernel};
  return Span<const IntKernel* const>(kernels, 1);
}
#endif

}  // namespace rt
