// AArch64 float32 micro-kernel (NEON): 8 rows x 16 columns per call, in passes that keep their
// accumulators in registers for the whole k loop. Every multiply-add is `fmla v.4s, v.4s, v.s[lane]`,
// a fused multiply-add per lane (one rounding), issued for k in ascending order per accumulator:
// the MXU's numerics, so the bits equal the portable kernel's on every board.
//
// Activations come in one of three layouts (float_kernel.hpp; packed_k_stride is 0, so the MXU
// hands full float32 blocks over in place and packs the others k-major, 8 floats per k step):
//   rows in place (a_k_stride 1): two passes of 4 rows x 16 columns (16 accumulators). A pass
//     loads 4 k steps of each row with one `ldr q` and the panel's 16 weights per k step with one
//     `ld1 {4 registers}`, then issues 16 fmla by lane: 16 fmla + 2 loads per 64 MACs, about 0.28
//     instructions per MAC in the k loop, and nothing spent on packing. The loop body is 4 k steps:
//     under QEMU 7.2 (TCG) a body of 24 unrolled k steps ran 15% slower per fmla than this one
//     (0.188 against 0.217 GFLOP/s on one qemu-virt-a53 core, the pure fmla loop 0.225), and an
//     in-order Cortex-A53 loses nothing measurable to one branch per 66 instructions.
//   k-major (a_row_stride 1, any a_k_stride: the MXU's packed blocks, 8 floats per k step, and
//     transposed activations read in place, e.g. the x^T of a weight gradient): two passes of 8
//     rows x 8 columns; one `ld1 {2 registers}` brings a k step of all 8 rows, one `ldp` its 8
//     weights, for 16 fmla. Its loop body is 4 k steps too: with 8, the digits MLP's training step
//     (whose weight gradients go this way) ran 3-4% slower on qemu-virt-a53.
//   anything else (neither stride 1): gathered k-major 32 k steps at a time into a stack buffer and
//     run as above (the accumulators go through c between chunks, which is exact).
// A narrow edge panel (run_narrow: fewer than 16 columns, e.g. a 10-class layer) runs passes only as
// wide as its columns need, in whole vectors of 4 columns: 12 columns' fmla for 10, not 16 (the
// digits MLP's step on qemu-virt-a53: 0.80-0.82 -> 0.83-0.84 of the emulated bound). The passes are
// templates on their width: at 16 columns the rows pass issues exactly the instructions it did as a
// plain function, and each k-major pass those of one pass before (two calls now, one per 8 columns).
// The k loops are inline assembly: four post-incremented pointers, no address arithmetic, and no
// risk of the compiler spilling one of the 32 vector registers the in-place pass uses.
#if defined(__aarch64__)
#include "runtime/mxu/float_kernel.hpp"

namespace rt {
namespace {

constexpr unsigned kRows = 8, kColumns = 16;
constexpr unsigned kPackedStride = 8;  // floats per k step in the k-major layout (= kRows)
// What the accumulators start from when not accumulating: +0.0f (the passes read it with stride 0).
alignas(16) constexpr float kZeros[kColumns] = {};

// An assembler macro for a list of the first `vectors` (1 .. 4) of four registers, the asm's
// [vectors] operand: `mxu_vlist op, r0, r1, r2, r3, rest` is `op {r0.4s, ...}, rest`, the one ld1 or
// st1 of a row's accumulators or a k step's weights (.if on the constant the compiler prints).
#define MXU_VLIST_MACRO                                                        \
  ".macro mxu_vlist op, r0, r1, r2, r3, rest:vararg\n"                         \
  ".if %c[vectors] == 4\n  \\op {\\r0\\().4s - \\r3\\().4s}, \\rest\n"                 \
  ".elseif %c[vectors] == 3\n  \\op {\\r0\\().4s - \\r2\\().4s}, \\rest\n"             \
  ".elseif %c[vectors] == 2\n  \\op {\\r0\\().4s, \\r1\\().4s}, \\rest\n"              \
  ".else\n  \\op {\\r0\\().4s}, \\rest\n"                                          \
  ".endif\n"                                                                   \
  ".endm\n"

// c[0..7][0..4 * Vectors - 1] (+)= a[0..7][k] * w[k][0..4 * Vectors - 1], a read from row pointers
// with unit k stride, in two passes of 4 rows; w is the 16-column panel (only its first 4 * Vectors
// columns are read). Registers: v16-v31 accumulators (pass row r, columns 4v..4v+3 in v16 + 4r + v),
// v12-v15 one k step of weights, v0, v3, v6, v9 activations (row r's current 4 k steps in v(3r)).
template <unsigned Vectors>
void run_rows(const float* a, int64_t a_row_stride, const float* w, unsigned k_rows, float* c, int64_t c_row_stride,
              bool accumulate) {
  const float* a0 = a;
  const float *a1, *a2, *a3, *w_k, *next_rows;
  uint64_t k, passes;
  const int64_t c_step = c_row_stride * int64_t{sizeof(float)};
  const float* start = accumulate ? c : kZeros;  // where the accumulators start from
  asm volatile(
      MXU_VLIST_MACRO
      // One row's fmla of one k step: its activation from lane \lane of \ra times each weight vector.
      ".macro mxu_row r0, r1, r2, r3, ra, lane\n"
      "  fmla \\r0\\().4s, v12.4s, \\ra\\().s[\\lane]\n"
      "  .if %c[vectors] > 1\n  fmla \\r1\\().4s, v13.4s, \\ra\\().s[\\lane]\n  .endif\n"
      "  .if %c[vectors] > 2\n  fmla \\r2\\().4s, v14.4s, \\ra\\().s[\\lane]\n  .endif\n"
      "  .if %c[vectors] > 3\n  fmla \\r3\\().4s, v15.4s, \\ra\\().s[\\lane]\n  .endif\n"
      ".endm\n"
      // One k step: the weights, then 4 x Vectors fmla.
      ".macro mxu_rk ra, rb, rc, rd, lane\n"
      "  mxu_vlist ld1, v12, v13, v14, v15, [%[w_k]], %[w_step]\n"
      "  mxu_row v16, v17, v18, v19, \\ra, \\lane\n"
      "  mxu_row v20, v21, v22, v23, \\rb, \\lane\n"
      "  mxu_row v24, v25, v26, v27, \\rc, \\lane\n"
      "  mxu_row v28, v29, v30, v31, \\rd, \\lane\n"
      ".endm\n"
      // Four k steps whose activations are lanes 0..3 of one register per row.
      ".macro mxu_rk4 ra, rb, rc, rd\n"
      "  mxu_rk \\ra, \\rb, \\rc, \\rd, 0\n"
      "  mxu_rk \\ra, \\rb, \\rc, \\rd, 1\n"
      "  mxu_rk \\ra, \\rb, \\rc, \\rd, 2\n"
      "  mxu_rk \\ra, \\rb, \\rc, \\rd, 3\n"
      ".endm\n"
      "  mov %[passes], #2\n"
      "0:\n"  // one pass: rows a0 .. a3 into c's next four rows
      "  add %[a1], %[a0], %[a_step]\n"
      "  add %[a2], %[a1], %[a_step]\n"
      "  add %[a3], %[a2], %[a_step]\n"
      "  add %[next_rows], %[a3], %[a_step]\n"
      "  mov %[w_k], %[w]\n"
      "  mov %[k], %[k_rows]\n"
      "  mxu_vlist ld1, v16, v17, v18, v19, [%[start]], %[start_step]\n"  // c's rows, or zeros
      "  mxu_vlist ld1, v20, v21, v22, v23, [%[start]], %[start_step]\n"
      "  mxu_vlist ld1, v24, v25, v26, v27, [%[start]], %[start_step]\n"
      "  mxu_vlist ld1, v28, v29, v30, v31, [%[start]], %[start_step]\n"
      "  subs %[k], %[k], #4\n"
      "  b.lo 7f\n"
      "3:\n"  // 4 k steps per iteration
      "  ldr q0, [%[a0]], #16\n"
      "  ldr q3, [%[a1]], #16\n"
      "  ldr q6, [%[a2]], #16\n"
      "  ldr q9, [%[a3]], #16\n"
      "  mxu_rk4 v0, v3, v6, v9\n"
      "  subs %[k], %[k], #4\n"
      "  b.hs 3b\n"
      "7:\n"
      "  ands %[k], %[k], #3\n"  // 0 .. 3 steps left (k is 4 below them): one at a time
      "  b.eq 9f\n"
      "8:\n"
      "  ldr s0, [%[a0]], #4\n"
      "  ldr s3, [%[a1]], #4\n"
      "  ldr s6, [%[a2]], #4\n"
      "  ldr s9, [%[a3]], #4\n"
      "  mxu_rk v0, v3, v6, v9, 0\n"
      "  subs %[k], %[k], #1\n"
      "  b.ne 8b\n"
      "9:\n"
      "  mxu_vlist st1, v16, v17, v18, v19, [%[c]], %[c_step]\n"
      "  mxu_vlist st1, v20, v21, v22, v23, [%[c]], %[c_step]\n"
      "  mxu_vlist st1, v24, v25, v26, v27, [%[c]], %[c_step]\n"
      "  mxu_vlist st1, v28, v29, v30, v31, [%[c]], %[c_step]\n"
      "  mov %[a0], %[next_rows]\n"
      "  subs %[passes], %[passes], #1\n"
      "  b.ne 0b\n"
      ".purgem mxu_rk4\n"
      ".purgem mxu_rk\n"
      ".purgem mxu_row\n"
      ".purgem mxu_vlist\n"
      : [a0] "+&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [next_rows] "=&r"(next_rows),
        [w_k] "=&r"(w_k), [k] "=&r"(k), [passes] "=&r"(passes), [c] "+&r"(c), [start] "+&r"(start)
      : [w] "r"(w), [k_rows] "r"(uint64_t{k_rows}), [a_step] "r"(a_row_stride * int64_t{sizeof(float)}),
        [w_step] "r"(int64_t{kColumns * sizeof(float)}), [c_step] "r"(c_step), [start_step] "r"(accumulate ? c_step : 0),
        [vectors] "i"(Vectors)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14",
        "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
        "v31");
}

// c[0..7][0..4 * Vectors - 1] (+)= a[0..7][k] * w[k][0..4 * Vectors - 1] for Vectors 1 or 2 (one
// pass of 4 or 8 columns), a k-major (rows 0..7 of k step k at a[k * a_k_stride .. + 7]), w columns
// of the 16-column panel. Registers: v16-v31 accumulators (row r, columns 4v..4v+3 in v16 + 2r + v),
// v0-v3 two k steps of activations (rows 0-3 and 4-7 each), v4-v5 one k step of the pass's weights.
template <unsigned Vectors>
void run_kmajor_pass(const float* a, int64_t a_k_stride, const float* w, unsigned k_rows, float* c,
                     int64_t c_row_stride, bool accumulate) {
  static_assert(Vectors == 1 || Vectors == 2, "a k-major pass is 4 or 8 columns wide");
  const float* a_k = a;
  const float* w_k = w;
  float* c_rows;
  uint64_t k = k_rows;
  const int64_t c_step = c_row_stride * int64_t{sizeof(float)};
  const float* start = accumulate ? c : kZeros;
  asm volatile(
      MXU_VLIST_MACRO
      // One row's fmla of one k step: its activation from lane \lane of \ra times each weight vector.
      ".macro mxu_kr r0, r1, ra, lane\n"
      "  fmla \\r0\\().4s, v4.4s, \\ra\\().s[\\lane]\n"
      "  .if %c[vectors] > 1\n  fmla \\r1\\().4s, v5.4s, \\ra\\().s[\\lane]\n  .endif\n"
      ".endm\n"
      // One k step: rows 0-3 in lanes of \lo, rows 4-7 in lanes of \hi.
      ".macro mxu_kk lo, hi\n"
      "  .if %c[vectors] > 1\n  ldp q4, q5, [%[w_k]], %[w_step]\n  .else\n  ldr q4, [%[w_k]], %[w_step]\n  .endif\n"
      "  mxu_kr v16, v17, \\lo, 0\n"
      "  mxu_kr v18, v19, \\lo, 1\n"
      "  mxu_kr v20, v21, \\lo, 2\n"
      "  mxu_kr v22, v23, \\lo, 3\n"
      "  mxu_kr v24, v25, \\hi, 0\n"
      "  mxu_kr v26, v27, \\hi, 1\n"
      "  mxu_kr v28, v29, \\hi, 2\n"
      "  mxu_kr v30, v31, \\hi, 3\n"
      ".endm\n"
      // Two k steps (8 rows each).
      ".macro mxu_kk2\n"
      "  ld1 {v0.4s, v1.4s}, [%[a_k]], %[a_step]\n"
      "  ld1 {v2.4s, v3.4s}, [%[a_k]], %[a_step]\n"
      "  mxu_kk v0, v1\n"
      "  mxu_kk v2, v3\n"
      ".endm\n"
      "  mov %[c_rows], %[start]\n"
      "  mxu_vlist ld1, v16, v17, v16, v17, [%[c_rows]], %[start_step]\n"  // c's rows, or zeros
      "  mxu_vlist ld1, v18, v19, v18, v19, [%[c_rows]], %[start_step]\n"
      "  mxu_vlist ld1, v20, v21, v20, v21, [%[c_rows]], %[start_step]\n"
      "  mxu_vlist ld1, v22, v23, v22, v23, [%[c_rows]], %[start_step]\n"
      "  mxu_vlist ld1, v24, v25, v24, v25, [%[c_rows]], %[start_step]\n"
      "  mxu_vlist ld1, v26, v27, v26, v27, [%[c_rows]], %[start_step]\n"
      "  mxu_vlist ld1, v28, v29, v28, v29, [%[c_rows]], %[start_step]\n"
      "  mxu_vlist ld1, v30, v31, v30, v31, [%[c_rows]]\n"
      "  subs %[k], %[k], #4\n"
      "  b.lo 2f\n"
      "1:\n"  // 4 k steps per iteration
      "  mxu_kk2\n"
      "  mxu_kk2\n"
      "  subs %[k], %[k], #4\n"
      "  b.hs 1b\n"
      "2:\n"
      "  add %[k], %[k], #4\n"  // 0 .. 3 steps left
      "  tbz %[k], #1, 4f\n"
      "  mxu_kk2\n"
      "4:\n"
      "  tbz %[k], #0, 5f\n"
      "  ldp q0, q1, [%[a_k]]\n"
      "  mxu_kk v0, v1\n"
      "5:\n"
      "  mov %[c_rows], %[c]\n"
      "  mxu_vlist st1, v16, v17, v16, v17, [%[c_rows]], %[c_step]\n"
      "  mxu_vlist st1, v18, v19, v18, v19, [%[c_rows]], %[c_step]\n"
      "  mxu_vlist st1, v20, v21, v20, v21, [%[c_rows]], %[c_step]\n"
      "  mxu_vlist st1, v22, v23, v22, v23, [%[c_rows]], %[c_step]\n"
      "  mxu_vlist st1, v24, v25, v24, v25, [%[c_rows]], %[c_step]\n"
      "  mxu_vlist st1, v26, v27, v26, v27, [%[c_rows]], %[c_step]\n"
      "  mxu_vlist st1, v28, v29, v28, v29, [%[c_rows]], %[c_step]\n"
      "  mxu_vlist st1, v30, v31, v30, v31, [%[c_rows]]\n"
      ".purgem mxu_kk2\n"
      ".purgem mxu_kk\n"
      ".purgem mxu_kr\n"
      ".purgem mxu_vlist\n"
      : [a_k] "+&r"(a_k), [w_k] "+&r"(w_k), [k] "+&r"(k), [c_rows] "=&r"(c_rows)
      : [a_step] "r"(a_k_stride * int64_t{sizeof(float)}), [w_step] "i"(kColumns * sizeof(float)), [c] "r"(c),
        [start] "r"(start), [c_step] "r"(c_step), [start_step] "r"(accumulate ? c_step : 0), [vectors] "i"(Vectors)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",
        "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31");
}

// c[0..7][0..cols - 1] (+)= a[0..7][k] * w[k][0..cols - 1] (cols 1 .. 16), a k-major: passes of 8
// columns, the last one 4 wide where 4 are enough; a pass may write c up to its own width.
void run_kmajor(const float* a, int64_t a_k_stride, const float* w, unsigned k_rows, unsigned cols, float* c,
                int64_t c_row_stride, bool accumulate) {
  for (unsigned col = 0; col < cols; col += 8) {
    if (cols - col > 4)
      run_kmajor_pass<2>(a, a_k_stride, w + col, k_rows, c + col, c_row_stride, accumulate);
    else
      run_kmajor_pass<1>(a, a_k_stride, w + col, k_rows, c + col, c_row_stride, accumulate);
  }
}

// Any other activation layout (neither stride 1): gathered k-major on the stack, kChunk k steps
// at a time; after the first chunk each adds onto c (which holds the float accumulators exactly).
__attribute__((noinline)) void run_gathered(const float* a, int64_t a_row_stride, int64_t a_k_stride, const float* w,
                                            unsigned k_rows, unsigned cols, float* c, int64_t c_row_stride,
                                            bool accumulate) {
  constexpr unsigned kChunk = 32;
  alignas(16) float packed[kChunk * kPackedStride];
  unsigned k0 = 0;
  do {
    const unsigned steps = k_rows - k0 < kChunk ? k_rows - k0 : kChunk;
    for (unsigned k = 0; k < steps; ++k)
      for (unsigned r = 0; r < kRows; ++r)
        packed[k * kPackedStride + r] = a[r * a_row_stride + static_cast<int64_t>(k0 + k) * a_k_stride];
    run_kmajor(packed, kPackedStride, w + k0 * kColumns, steps, cols, c, c_row_stride, k0 == 0 ? accumulate : true);
    k0 += steps;
  } while (k0 < k_rows);
}

// The panel's first `cols` columns (1 .. 16): passes only as wide as they need, in whole vectors of
// 4 columns (a 10-column layer costs 12 columns' fmla, not 16).
void run_neon_columns(const float* a, int64_t a_row_stride, int64_t a_k_stride, const float* w, unsigned k_rows,
                      unsigned cols, float* c, int64_t c_row_stride, bool accumulate) {
  if (a_k_stride == 1) {
    switch ((cols + 3) / 4) {
      case 1: return run_rows<1>(a, a_row_stride, w, k_rows, c, c_row_stride, accumulate);
      case 2: return run_rows<2>(a, a_row_stride, w, k_rows, c, c_row_stride, accumulate);
      case 3: return run_rows<3>(a, a_row_stride, w, k_rows, c, c_row_stride, accumulate);
      default: return run_rows<4>(a, a_row_stride, w, k_rows, c, c_row_stride, accumulate);
    }
  }
  if (a_row_stride == 1) return run_kmajor(a, a_k_stride, w, k_rows, cols, c, c_row_stride, accumulate);
  return run_gathered(a, a_row_stride, a_k_stride, w, k_rows, cols, c, c_row_stride, accumulate);
}

void run_neon(const float* a, int64_t a_row_stride, int64_t a_k_stride, const float* w, unsigned k_rows, float* c,
              int64_t c_row_stride, bool accumulate) {
  run_neon_columns(a, a_row_stride, a_k_stride, w, k_rows, kColumns, c, c_row_stride, accumulate);
}

constexpr FloatKernel kNeon = {"neon-8x16", kRows, kColumns, 0, run_neon, nullptr, nullptr, run_neon_columns};

}  // namespace

// Advanced SIMD is part of every AArch64 core this runtime targets (Cortex-A53 and later).
Span<const FloatKernel* const> float_kernels_for_this_cpu() {
  static const FloatKernel* const kernels[] = {&kNeon, &kPortableFloatKernel};
  return Span<const FloatKernel* const>(kernels, 2);
}

}  // namespace rt
#endif
