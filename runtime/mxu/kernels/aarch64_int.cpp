// AArch64 int8 micro-kernel (NEON): up to 8 rows x 16 columns per call, in passes of 2 rows over
// the panel, kBiasedBytes layout (int_kernel.hpp). The Cortex-A53 has no dot-product instructions
// (no sdot), so the products come from widening multiplies of int8 to int16 lanes, added pairwise
// into int32 accumulators:
//
//   smull  p.8h, w.8b, a.8b     8 products w[k][j] * a[k]: columns j, j+1 x the 4 k of a group
//   smlsl  p.8h, w'.8b, n.8b    minus 8 products of the next group's 4 k (see below)
//   sadalp acc.4s, p.8h         p's lanes added in pairs into the int32 accumulator (mod 2^32)
//
// Three instructions per 16 multiply-adds. Two int8 products can not simply share an int16 lane:
// each lies in [-16256, 16384], and (-128)(-128) + (-128)(-128) = 32768 does not fit. So the
// second group's activations are complemented first, n = ~a' = -a' - 1 (an int8 again, in
// [-128, 127]), and their products subtracted: -w' * n = w' * a' + w', in [-16384, 16256], so the lane
//   p = w * a + w' * a' + w'  lies in [-32640, 32640]: exact in int16.
// The w' terms add, to column j of every row, T[j] = the sum of w[k][j] over the second group of
// each pair (k % 8 >= 4): a property of the panel, computed once per call (start_values) before
// the rows' passes, whose accumulators start from -T, so the result is exact mod 2^32, the same
// bits as the portable kernel. The layout's `correction` (-128 x column sums, for VNNI's biased
// activations) is not used: this kernel multiplies the signed activations as they are. K is padded
// to a multiple of 4 with zero weights (so the junk activations there add nothing, to the products
// or to T); an odd group at the end goes through smull and sadalp alone.
//
// Per pair of groups (8 k steps, 2 rows x 16 columns = 256 MACs): two `ld1 {4 registers}` of
// weights, one `ld2r` per row (its two groups, each replicated to the four 32-bit lanes), one `not`
// per row, 48 multiply / pairwise-add instructions: 54 instructions, about 0.21 per MAC in the k
// loop. Registers: v0-v3 the pair's first group of weights (columns 4i..4i+3, each column's 4 k
// steps contiguous), v4-v7 its second, v8/v9 row 0's groups (the second complemented), v10/v11
// row 1's, v12-v15 products, v16-v23 row 0's accumulators, v24-v31 row 1's: weight register i's
// low half (columns 4i, 4i+1) adds into v16 + 2i, its high half into v17 + 2i, each lane one
// column's partial sum (lanes: column 4i k 0-1, column 4i k 2-3, column 4i+1 k 0-1, k 2-3), so
// `addp` of the two gives columns 4i..4i+3 in order.
//
// The weight panels are packed by pack_panel_neon (zips of four k rows; the layout's corrections
// from the same registers).
#if defined(__aarch64__)
#include <arm_neon.h>

#include "runtime/mxu/int_kernel.hpp"

namespace rt {
namespace {

constexpr unsigned kRows = 8, kColumns = 16;
constexpr unsigned kPairRows = 2;  // rows per pass over the panel

// The accumulators' start values for one panel, start[8][4] in the order of v16..v23 (weight
// register i's low half, then its high half): each column j gets -T[j] in its first lane, where
// T[j] = sum of w[k][j] over the second group of each pair (k % 8 >= 4, k < 8 x pairs), mod 2^32.
// The bytes of each second group add pairwise into int16 lanes (at most 256 in magnitude per pair,
// widened every 64 pairs: far from overflowing), then pairwise into int32: one lane per column.
void start_values(const int8_t* w, unsigned pairs, int32_t* start) {
  int32x4_t sums[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
  unsigned p = 0;
  while (p < pairs) {
    const unsigned end = pairs - p > 64 ? p + 64 : pairs;
    int16x8_t halves[4] = {vdupq_n_s16(0), vdupq_n_s16(0), vdupq_n_s16(0), vdupq_n_s16(0)};
    for (const int8_t* second = w + p * 8 * kColumns + 4 * kColumns; p < end; ++p, second += 8 * kColumns) {
#pragma GCC unroll 4
      for (unsigned i = 0; i < 4; ++i) halves[i] = vpadalq_s8(halves[i], vld1q_s8(second + 16 * i));
    }
#pragma GCC unroll 4
    for (unsigned i = 0; i < 4; ++i) sums[i] = vpadalq_s16(sums[i], halves[i]);
  }
  const int32x4_t zero = vdupq_n_s32(0);
#pragma GCC unroll 4
  for (unsigned i = 0; i < 4; ++i) {
    const int32x4_t minus = vsubq_s32(zero, sums[i]);  // -T for columns 4i .. 4i + 3
    vst1q_s32(start + 8 * i, vzip1q_s32(minus, zero));  // columns 4i, 4i + 1: (-T, 0, -T, 0)
    vst1q_s32(start + 8 * i + 4, vzip2q_s32(minus, zero));  // columns 4i + 2, 4i + 3
  }
}

// Rows a0 and a1 (rows 2), or a0 alone (rows 1: a1 is a0 again, row 1 never stored), into c's rows;
// the accumulators start from `start` (start_values).
__attribute__((always_inline)) inline void run_two_rows(const int8_t* a0, const int8_t* a1, const int8_t* w,
                                                        unsigned k_steps, unsigned rows, int32_t* c,
                                                        int64_t c_row_stride, bool accumulate, const int32_t* start) {
  uint64_t pairs = k_steps / 8;
  asm volatile(
      // Weight registers \wg (first group of the pair) and \wn (second group: its products with the
      // complemented activations subtracted), both rows.
      ".macro mxi_cols2 wg, wn, r0lo, r0hi, r1lo, r1hi\n"
      "  smull  v12.8h, \\wg\\().8b, v8.8b\n"
      "  smull  v14.8h, \\wg\\().8b, v10.8b\n"
      "  smull2 v13.8h, \\wg\\().16b, v8.16b\n"
      "  smull2 v15.8h, \\wg\\().16b, v10.16b\n"
      "  smlsl  v12.8h, \\wn\\().8b, v9.8b\n"
      "  smlsl  v14.8h, \\wn\\().8b, v11.8b\n"
      "  smlsl2 v13.8h, \\wn\\().16b, v9.16b\n"
      "  smlsl2 v15.8h, \\wn\\().16b, v11.16b\n"
      "  sadalp \\r0lo\\().4s, v12.8h\n"
      "  sadalp \\r1lo\\().4s, v14.8h\n"
      "  sadalp \\r0hi\\().4s, v13.8h\n"
      "  sadalp \\r1hi\\().4s, v15.8h\n"
      ".endm\n"
      // One pair of groups: 8 k steps.
      ".macro mxi_pair\n"
      "  ld1 {v0.16b - v3.16b}, [%[w]], #64\n"
      "  ld1 {v4.16b - v7.16b}, [%[w]], #64\n"
      "  ld2r {v8.4s, v9.4s}, [%[a0]], #8\n"
      "  ld2r {v10.4s, v11.4s}, [%[a1]], #8\n"
      "  not v9.16b, v9.16b\n"
      "  not v11.16b, v11.16b\n"
      "  mxi_cols2 v0, v4, v16, v17, v24, v25\n"
      "  mxi_cols2 v1, v5, v18, v19, v26, v27\n"
      "  mxi_cols2 v2, v6, v20, v21, v28, v29\n"
      "  mxi_cols2 v3, v7, v22, v23, v30, v31\n"
      ".endm\n"
      // One group alone (the last when K / 4 is odd): 4 k steps.
      ".macro mxi_cols1 wg, r0lo, r0hi, r1lo, r1hi\n"
      "  smull  v12.8h, \\wg\\().8b, v8.8b\n"
      "  smull  v14.8h, \\wg\\().8b, v10.8b\n"
      "  smull2 v13.8h, \\wg\\().16b, v8.16b\n"
      "  smull2 v15.8h, \\wg\\().16b, v10.16b\n"
      "  sadalp \\r0lo\\().4s, v12.8h\n"
      "  sadalp \\r1lo\\().4s, v14.8h\n"
      "  sadalp \\r0hi\\().4s, v13.8h\n"
      "  sadalp \\r1hi\\().4s, v15.8h\n"
      ".endm\n"
      // A row's 16 columns out of its 8 accumulators: in place, or added to c.
      ".macro mxi_store q0, q1, q2, q3, q4, q5, q6, q7\n"
      "  addp v0.4s, \\q0\\().4s, \\q1\\().4s\n"
      "  addp v1.4s, \\q2\\().4s, \\q3\\().4s\n"
      "  addp v2.4s, \\q4\\().4s, \\q5\\().4s\n"
      "  addp v3.4s, \\q6\\().4s, \\q7\\().4s\n"
      "  cbz %[accumulate], 10f\n"
      "  ld1 {v4.4s - v7.4s}, [%[c]]\n"
      "  add v0.4s, v0.4s, v4.4s\n"
      "  add v1.4s, v1.4s, v5.4s\n"
      "  add v2.4s, v2.4s, v6.4s\n"
      "  add v3.4s, v3.4s, v7.4s\n"
      "10:\n"
      "  st1 {v0.4s - v3.4s}, [%[c]], %[c_step]\n"
      ".endm\n"
      "  ld1 {v16.4s - v19.4s}, [%[start]], #64\n"
      "  ld1 {v20.4s - v23.4s}, [%[start]]\n"
      "  mov v24.16b, v16.16b\n"
      "  mov v25.16b, v17.16b\n"
      "  mov v26.16b, v18.16b\n"
      "  mov v27.16b, v19.16b\n"
      "  mov v28.16b, v20.16b\n"
      "  mov v29.16b, v21.16b\n"
      "  mov v30.16b, v22.16b\n"
      "  mov v31.16b, v23.16b\n"
      "  tbz %[pairs], #0, 1f\n"
      "  mxi_pair\n"
      "1:\n"
      "  tbz %[pairs], #1, 2f\n"
      "  mxi_pair\n"
      "  mxi_pair\n"
      "2:\n"
      "  lsr %[pairs], %[pairs], #2\n"
      "  cbz %[pairs], 4f\n"
      "3:\n"  // four pairs (32 k steps) per iteration
      "  mxi_pair\n"
      "  mxi_pair\n"
      "  mxi_pair\n"
      "  mxi_pair\n"
      "  subs %[pairs], %[pairs], #1\n"
      "  b.ne 3b\n"
      "4:\n"
      "  tbz %[k_steps], #2, 5f\n"  // K / 4 odd: one group left
      "  ld1 {v0.16b - v3.16b}, [%[w]]\n"
      "  ld1r {v8.4s}, [%[a0]]\n"
      "  ld1r {v10.4s}, [%[a1]]\n"
      "  mxi_cols1 v0, v16, v17, v24, v25\n"
      "  mxi_cols1 v1, v18, v19, v26, v27\n"
      "  mxi_cols1 v2, v20, v21, v28, v29\n"
      "  mxi_cols1 v3, v22, v23, v30, v31\n"
      "5:\n"
      "  mxi_store v16, v17, v18, v19, v20, v21, v22, v23\n"
      "  cmp %[rows], #2\n"
      "  b.lo 6f\n"
      "  mxi_store v24, v25, v26, v27, v28, v29, v30, v31\n"
      "6:\n"
      ".purgem mxi_store\n"
      ".purgem mxi_cols1\n"
      ".purgem mxi_pair\n"
      ".purgem mxi_cols2\n"
      : [w] "+&r"(w), [a0] "+&r"(a0), [a1] "+&r"(a1), [pairs] "+&r"(pairs), [c] "+&r"(c), [start] "+&r"(start)
      : [k_steps] "r"(uint64_t{k_steps}), [rows] "r"(uint64_t{rows}), [accumulate] "r"(uint64_t{accumulate}),
        [c_step] "r"(c_row_stride * int64_t{sizeof(int32_t)})
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14",
        "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
        "v31");
}

void run_neon_int(const int8_t* a, int64_t a_row_stride, const int8_t* w, const int32_t* /*correction*/,
                  unsigned k_steps, unsigned rows, int32_t* c, int64_t c_row_stride, bool accumulate) {
  alignas(16) int32_t start[8 * 4];
  start_values(w, k_steps / 8, start);
  for (unsigned r = 0; r < rows; r += kPairRows, a += kPairRows * a_row_stride, c += kPairRows * c_row_stride) {
    const unsigned pair_rows = rows - r < kPairRows ? rows - r : kPairRows;
    run_two_rows(a, pair_rows > 1 ? a + a_row_stride : a, w, k_steps, pair_rows, c, c_row_stride, accumulate, start);
  }
}

// One k row of the panel (valid_columns of 16 from w, the rest zero).
inline int8x16_t panel_row(const int8_t* w, unsigned valid_columns) {
  if (valid_columns >= kColumns) return vld1q_s8(w);
  alignas(16) int8_t row[kColumns] = {};
  for (unsigned j = 0; j < valid_columns; ++j) row[j] = w[j];
  return vld1q_s8(row);
}

// The kBiasedBytes panel of 16 columns: four k rows r0..r3 interleaved bytewise (zip1/zip2 of
// r0, r1 and of r2, r3: k pairs per column), then by 16 bits (each column's 4 k contiguous);
// each result register holds 4 columns, whose byte sums (pairwise into int16, then int32) build
// the column sums for the corrections, -128 x sum mod 2^32.
void pack_panel_neon(const int8_t* w, int64_t w_row_stride, unsigned k_rows, unsigned valid_columns, int8_t* panel,
                     int32_t* correction) {
  int32x4_t sums[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
  for (unsigned k0 = 0; k0 < k_rows; k0 += 4, panel += 4 * kColumns) {
    int8x16_t r[4];
#pragma GCC unroll 4
    for (unsigned i = 0; i < 4; ++i)
      r[i] = k0 + i < k_rows ? panel_row(w + (k0 + i) * w_row_stride, valid_columns) : vdupq_n_s8(0);
    const int16x8_t low01 = vreinterpretq_s16_s8(vzip1q_s8(r[0], r[1]));   // columns 0-7: k0 k1
    const int16x8_t high01 = vreinterpretq_s16_s8(vzip2q_s8(r[0], r[1]));  // columns 8-15
    const int16x8_t low23 = vreinterpretq_s16_s8(vzip1q_s8(r[2], r[3]));   // columns 0-7: k2 k3
    const int16x8_t high23 = vreinterpretq_s16_s8(vzip2q_s8(r[2], r[3]));
    const int8x16_t columns[4] = {vreinterpretq_s8_s16(vzip1q_s16(low01, low23)),  // columns 0-3: k0..k3
                                  vreinterpretq_s8_s16(vzip2q_s16(low01, low23)),
                                  vreinterpretq_s8_s16(vzip1q_s16(high01, high23)),
                                  vreinterpretq_s8_s16(vzip2q_s16(high01, high23))};
#pragma GCC unroll 4
    for (unsigned v = 0; v < 4; ++v) {
      vst1q_s8(panel + 16 * v, columns[v]);
      sums[v] = vpadalq_s16(sums[v], vpaddlq_s8(columns[v]));
    }
  }
#pragma GCC unroll 4
  for (unsigned v = 0; v < 4; ++v) vst1q_s32(correction + 4 * v, vmulq_n_s32(sums[v], -128));
}

constexpr IntKernel kNeonInt = {"neon-int-8x16", kRows, kColumns, 4, nullptr, IntLayout::kBiasedBytes, run_neon_int,
                                pack_panel_neon};

}  // namespace

// Advanced SIMD is part of every AArch64 core this runtime targets (Cortex-A53 and later).
Span<const IntKernel* const> int_kernels_for_this_cpu() {
  static const IntKernel* const kernels[] = {&kNeonInt, &kPortableIntKernel};
  return Span<const IntKernel* const>(kernels, 2);
}

}  // namespace rt
#endif
