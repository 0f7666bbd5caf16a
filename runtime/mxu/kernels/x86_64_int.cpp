// x86-64 int8 micro-kernels, chosen from CPUID at run time:
//  - VNNI (kBiasedBytes layout): vpdpbusd adds four u8 x s8 products per 32-bit lane; the int8
//    activations are biased to unsigned in the kernel and the weights' column sums correct for it
//    (int_kernel.hpp). AVX-512 VNNI: 6 rows x 64 columns (zmm); AVX-VNNI: 6 rows x 16 (ymm).
//  - vpmaddwd (kInt16 layout; the fallbacks): int8 values widened to int16, k steps taken in
//    pairs. vpmaddwd multiplies 16-bit pairs and adds each pair into one 32-bit lane (a[k] * w[k][j]
//    + a[k+1] * w[k+1][j], exact), then vpaddd adds that to the accumulator (mod 2^32).
//    AVX-512BW: 8 rows x 32 columns; AVX2: 6 rows x 16 columns.
#if defined(__x86_64__)
#include <immintrin.h>

#include "runtime/mxu/int_kernel.hpp"

namespace rt {
namespace {

constexpr unsigned kAvx512Rows = 8, kAvx512Columns = 32;
constexpr unsigned kAvx2Rows = 6, kAvx2Columns = 16;

// The activation pair (a[k][r], a[k+1][r]) as one 32-bit value, broadcast to every lane.
inline int32_t pair_at(const int16_t* a, unsigned r) {
  int32_t pair;
  __builtin_memcpy(&pair, a + 2 * r, 4);
  return pair;
}

__attribute__((target("avx512f,avx512bw"))) void run_avx512_int(const int16_t* a, const int16_t* w, unsigned k_steps,
                                                                int32_t* c, int64_t c_row_stride, bool accumulate) {
  __m512i left[kAvx512Rows], right[kAvx512Rows];
#pragma GCC unroll 8
  for (unsigned r = 0; r < kAvx512Rows; ++r) {
    left[r] = accumulate ? _mm512_loadu_si512(c + r * c_row_stride) : _mm512_setzero_si512();
    right[r] = accumulate ? _mm512_loadu_si512(c + r * c_row_stride + 16) : _mm512_setzero_si512();
  }
  for (unsigned pair = 0; pair < k_steps / 2; ++pair, a += 2 * kAvx512Rows, w += 2 * kAvx512Columns) {
    const __m512i w_left = _mm512_loadu_si512(w);
    const __m512i w_right = _mm512_loadu_si512(w + 32);
#pragma GCC unroll 8
    for (unsigned r = 0; r < kAvx512Rows; ++r) {
      const __m512i x = _mm512_set1_epi32(pair_at(a, r));
      left[r] = _mm512_add_epi32(left[r], _mm512_madd_epi16(x, w_left));
      right[r] = _mm512_add_epi32(right[r], _mm512_madd_epi16(x, w_right));
    }
  }
#pragma GCC unroll 8
  for (unsigned r = 0; r < kAvx512Rows; ++r) {
    _mm512_storeu_si512(c + r * c_row_stride, left[r]);
    _mm512_storeu_si512(c + r * c_row_stride + 16, right[r]);
  }
  _mm256_zeroupper();  // leave no dirty upper halves: later SSE code (libm) would pay for them
}

__attribute__((target("avx2"))) void run_avx2_int(const int16_t* a, const int16_t* w, unsigned k_steps, int32_t* c,
                                                  int64_t c_row_stride, bool accumulate) {
  __m256i left[kAvx2Rows], right[kAvx2Rows];
#pragma GCC unroll 6
  for (unsigned r = 0; r < kAvx2Rows; ++r) {
    left[r] = accumulate ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + r * c_row_stride)) : _mm256_setzero_si256();
    right[r] = accumulate ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + r * c_row_stride + 8))
                          : _mm256_setzero_si256();
  }
  for (unsigned pair = 0; pair < k_steps / 2; ++pair, a += 2 * kAvx2Rows, w += 2 * kAvx2Columns) {
    const __m256i w_left = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    const __m256i w_right = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16));
#pragma GCC unroll 6
    for (unsigned r = 0; r < kAvx2Rows; ++r) {
      const __m256i x = _mm256_set1_epi32(pair_at(a, r));
      left[r] = _mm256_add_epi32(left[r], _mm256_madd_epi16(x, w_left));
      right[r] = _mm256_add_epi32(right[r], _mm256_madd_epi16(x, w_right));
    }
  }
#pragma GCC unroll 6
  for (unsigned r = 0; r < kAvx2Rows; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * c_row_stride), left[r]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * c_row_stride + 8), right[r]);
  }
  _mm256_zeroupper();  // leave no dirty upper halves: later SSE code (libm) would pay for them
}

// ---- VNNI: u8 x s8 dot products of four k steps per 32-bit lane (kBiasedBytes layout) ----
//
// vpdpbusd multiplies the four unsigned bytes of each lane of its first source with the four signed
// bytes of the same lane of its second and adds the four products to the lane of the accumulator,
// wrapping mod 2^32 (the saturating form is vpdpbusds, not used here). Per group of four k steps a
// kernel broadcasts each row's four int8 activations (one 32-bit load, straight from the
// activation rows), flips their top bits (a + 128 as uint8: one vpxor) and issues one vpdpbusd per
// accumulator vector against the panel's weight vectors. The accumulators start at c (or 0) plus
// the panel's correction -128 * sum_k w[k][j], which cancels the bias exactly (int_kernel.hpp).

// The four activations a[r][4g .. 4g + 3] as one 32-bit value.
inline int32_t quad_at(const int8_t* a, int64_t a_row_stride, unsigned r, unsigned g) {
  int32_t quad;
  __builtin_memcpy(&quad, a + r * a_row_stride + 4 * g, 4);
  return quad;
}

constexpr int32_t kBias = static_cast<int32_t>(0x80808080u);  // +128 on each byte: flips its top bit

// AVX-512 VNNI: up to 6 rows x 64 columns in 4 x 6 zmm accumulators (of 32 registers; the rest
// hold the panel's four weight vectors, the bias and the broadcast activations).
constexpr unsigned kVnni512Rows = 6, kVnni512Columns = 64;

template <unsigned Rows>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void vnni512_rows(const int8_t* a, int64_t a_row_stride,
                                                                        const int8_t* w, const int32_t* correction,
                                                                        unsigned k_steps, int32_t* c,
                                                                        int64_t c_row_stride, bool accumulate) {
  __m512i acc0[Rows], acc1[Rows], acc2[Rows], acc3[Rows];
  const __m512i bias0 = _mm512_loadu_si512(correction), bias1 = _mm512_loadu_si512(correction + 16);
  const __m512i bias2 = _mm512_loadu_si512(correction + 32), bias3 = _mm512_loadu_si512(correction + 48);
#pragma GCC unroll 8
  for (unsigned r = 0; r < Rows; ++r) {
    acc0[r] = bias0;
    acc1[r] = bias1;
    acc2[r] = bias2;
    acc3[r] = bias3;
  }
  const __m512i flip = _mm512_set1_epi32(kBias);
  for (unsigned g = 0; g < k_steps / 4; ++g, w += 4 * kVnni512Columns) {
    const __m512i w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 64);
    const __m512i w2 = _mm512_loadu_si512(w + 128), w3 = _mm512_loadu_si512(w + 192);
#pragma GCC unroll 8
    for (unsigned r = 0; r < Rows; ++r) {
      const __m512i x = _mm512_xor_si512(_mm512_set1_epi32(quad_at(a, a_row_stride, r, g)), flip);
      acc0[r] = _mm512_dpbusd_epi32(acc0[r], x, w0);
      acc1[r] = _mm512_dpbusd_epi32(acc1[r], x, w1);
      acc2[r] = _mm512_dpbusd_epi32(acc2[r], x, w2);
      acc3[r] = _mm512_dpbusd_epi32(acc3[r], x, w3);
    }
  }
  // c is read only now: its loads (often from L2) overlap the last k steps instead of holding up the first.
  if (accumulate) {
#pragma GCC unroll 8
    for (unsigned r = 0; r < Rows; ++r) {
      const int32_t* row = c + r * c_row_stride;
      acc0[r] = _mm512_add_epi32(acc0[r], _mm512_loadu_si512(row));
      acc1[r] = _mm512_add_epi32(acc1[r], _mm512_loadu_si512(row + 16));
      acc2[r] = _mm512_add_epi32(acc2[r], _mm512_loadu_si512(row + 32));
      acc3[r] = _mm512_add_epi32(acc3[r], _mm512_loadu_si512(row + 48));
    }
  }
#pragma GCC unroll 8
  for (unsigned r = 0; r < Rows; ++r) {
    int32_t* row = c + r * c_row_stride;
    _mm512_storeu_si512(row, acc0[r]);
    _mm512_storeu_si512(row + 16, acc1[r]);
    _mm512_storeu_si512(row + 32, acc2[r]);
    _mm512_storeu_si512(row + 48, acc3[r]);
  }
  _mm256_zeroupper();  // leave no dirty upper halves: later SSE code (libm) would pay for them
}

void run_vnni512(const int8_t* a, int64_t a_row_stride, const int8_t* w, const int32_t* correction, unsigned k_steps,
                 unsigned rows, int32_t* c, int64_t c_row_stride, bool accumulate) {
  switch (rows) {
    case 1: return vnni512_rows<1>(a, a_row_stride, w, correction, k_steps, c, c_row_stride, accumulate);
    case 2: return vnni512_rows<2>(a, a_row_stride, w, correction, k_steps, c, c_row_stride, accumulate);
    case 3: return vnni512_rows<3>(a, a_row_stride, w, correction, k_steps, c, c_row_stride, accumulate);
    case 4: return vnni512_rows<4>(a, a_row_stride, w, correction, k_steps, c, c_row_stride, accumulate);
    case 5: return vnni512_rows<5>(a, a_row_stride, w, correction, k_steps, c, c_row_stride, accumulate);
    default: return vnni512_rows<6>(a, a_row_stride, w, correction, k_steps, c, c_row_stride, accumulate);
  }
}

// AVX-VNNI (VEX-encoded, ymm0-15 only): up to 6 rows x 16 columns in 12 ymm accumulators, two
// weight vectors, the bias and the broadcast.
constexpr unsigned kVnni256Rows = 6, kVnni256Columns = 16;

template <unsigned Rows>
__attribute__((target("avx2,avxvnni"))) void vnni256_rows(const int8_t* a, int64_t a_row_stride, const int8_t* w,
                                                         const int32_t* correction, unsigned k_steps, int32_t* c,
                                                         int64_t c_row_stride, bool accumulate) {
  __m256i left[Rows], right[Rows];
  const __m256i bias_left = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(correction));
  const __m256i bias_right = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(correction + 8));
#pragma GCC unroll 6
  for (unsigned r = 0; r < Rows; ++r) {
    left[r] = bias_left;
    right[r] = bias_right;
  }
  const __m256i flip = _mm256_set1_epi32(kBias);
  for (unsigned g = 0; g < k_steps / 4; ++g, w += 4 * kVnni256Columns) {
    const __m256i w_left = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    const __m256i w_right = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32));
#pragma GCC unroll 6
    for (unsigned r = 0; r < Rows; ++r) {
      const __m256i x = _mm256_xor_si256(_mm256_set1_epi32(quad_at(a, a_row_stride, r, g)), flip);
      left[r] = _mm256_dpbusd_avx_epi32(left[r], x, w_left);
      right[r] = _mm256_dpbusd_avx_epi32(right[r], x, w_right);
    }
  }
  if (accumulate) {  // c read only now, as in the AVX-512 kernel
#pragma GCC unroll 6
    for (unsigned r = 0; r < Rows; ++r) {
      const __m256i* row = reinterpret_cast<const __m256i*>(c + r * c_row_stride);
      left[r] = _mm256_add_epi32(left[r], _mm256_loadu_si256(row));
      right[r] = _mm256_add_epi32(right[r], _mm256_loadu_si256(row + 1));
    }
  }
#pragma GCC unroll 6
  for (unsigned r = 0; r < Rows; ++r) {
    __m256i* row = reinterpret_cast<__m256i*>(c + r * c_row_stride);
    _mm256_storeu_si256(row, left[r]);
    _mm256_storeu_si256(row + 1, right[r]);
  }
  _mm256_zeroupper();
}

void run_vnni256(const int8_t* a, int64_t a_row_stride, const int8_t* w, const int32_t* correction, unsigned k_steps,
                 unsigned rows, int32_t* c, int64_t c_row_stride, bool accumulate) {
  switch (rows) {
    case 1: return vnni256_rows<1>(a, a_row_stride, w, correction, k_steps, c, c_row_stride, accumulate);
    case 2: return vnni256_rows<2>(a, a_row_stride, w, correction, k_steps, c, c_row_stride, accumulate);
    case 3: return vnni256_rows<3>(a, a_row_stride, w, correction, k_steps, c, c_row_stride, accumulate);
    case 4: return vnni256_rows<4>(a, a_row_stride, w, correction, k_steps, c, c_row_stride, accumulate);
    case 5: return vnni256_rows<5>(a, a_row_stride, w, correction, k_steps, c, c_row_stride, accumulate);
    default: return vnni256_rows<6>(a, a_row_stride, w, correction, k_steps, c, c_row_stride, accumulate);
  }
}

// Sixteen bytes of one weight row (zeros past `count`), without reading past the row's end.
__attribute__((target("avx2"))) inline __m128i row_chunk(const int8_t* row, unsigned count) {
  if (count >= 16) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(row));
  alignas(16) int8_t bytes[16] = {};
  for (unsigned j = 0; j < count; ++j) bytes[j] = row[j];
  return _mm_load_si128(reinterpret_cast<const __m128i*>(bytes));
}

// One panel of `Columns` columns in the kBiasedBytes layout (AVX2, for the AVX-VNNI kernel): for
// every group of four weight rows, sixteen columns at a time, the four rows' bytes interleaved
// (punpcklbw/punpcklwd) into sixteen 4-byte column groups; the column sums from the same
// registers (pmaddubsw with ones adds byte pairs into int16 exactly, pmaddwd with ones the int16
// pairs into int32).
template <unsigned Columns>
__attribute__((target("avx2"))) void pack_panel_avx2(const int8_t* w, int64_t w_row_stride, unsigned k_rows,
                                                     unsigned valid_columns, int8_t* panel, int32_t* correction) {
  static_assert(Columns % 16 == 0);
  const __m128i byte_ones = _mm_set1_epi8(1), pair_ones = _mm_set1_epi16(1);
  for (unsigned chunk = 0; chunk < Columns / 16; ++chunk) {
    const unsigned j0 = 16 * chunk;
    const unsigned count = valid_columns > j0 ? valid_columns - j0 : 0;
    __m128i sums[4] = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
    int8_t* out = panel + 4 * j0;
    for (unsigned k0 = 0; k0 < k_rows; k0 += 4, out += 4 * Columns) {
      __m128i rows[4];
#pragma GCC unroll 4
      for (unsigned i = 0; i < 4; ++i)
        rows[i] = k0 + i < k_rows && count > 0 ? row_chunk(w + (k0 + i) * w_row_stride + j0, count) : _mm_setzero_si128();
      const __m128i low01 = _mm_unpacklo_epi8(rows[0], rows[1]), high01 = _mm_unpackhi_epi8(rows[0], rows[1]);
      const __m128i low23 = _mm_unpacklo_epi8(rows[2], rows[3]), high23 = _mm_unpackhi_epi8(rows[2], rows[3]);
      const __m128i quads[4] = {_mm_unpacklo_epi16(low01, low23), _mm_unpackhi_epi16(low01, low23),
                                _mm_unpacklo_epi16(high01, high23), _mm_unpackhi_epi16(high01, high23)};
#pragma GCC unroll 4
      for (unsigned q = 0; q < 4; ++q) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out) + q, quads[q]);
        sums[q] = _mm_add_epi32(sums[q], _mm_madd_epi16(_mm_maddubs_epi16(byte_ones, quads[q]), pair_ones));
      }
    }
    // correction = -128 * sum, mod 2^32: (0 - sum) << 7
#pragma GCC unroll 4
    for (unsigned q = 0; q < 4; ++q)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(correction + j0) + q,
                       _mm_slli_epi32(_mm_sub_epi32(_mm_setzero_si128(), sums[q]), 7));
  }
}

// vshufi64x2: 128-bit lanes imm[1:0], imm[3:2] of a and imm[5:4], imm[7:6] of b. (The masked form
// with every lane selected: the plain one trips GCC 12's -Wuninitialized on _mm512_undefined_epi32.)
template <int Imm>
__attribute__((target("avx512f"))) inline __m512i lanes(__m512i a, __m512i b) {
  return _mm512_mask_shuffle_i64x2(a, 0xff, a, b, Imm);
}

// The same for the AVX-512 VNNI kernel's 64-column panels, 64 columns per instruction: masked
// loads (no byte past valid_columns is read), in-lane interleaves give each 128-bit lane L the
// columns 16L + 4q .. 16L + 4q + 3 in vector q, and a 4 x 4 transpose of 128-bit lanes puts
// columns 16q .. 16q + 15 in vector q; vpdpbusd with ones sums each column's four bytes.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void pack_panel_avx512(const int8_t* w, int64_t w_row_stride,
                                                                             unsigned k_rows, unsigned valid_columns,
                                                                             int8_t* panel, int32_t* correction) {
  const __mmask64 valid = valid_columns >= 64 ? ~__mmask64{0} : (__mmask64{1} << valid_columns) - 1;
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i sums[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  for (unsigned k0 = 0; k0 < k_rows; k0 += 4, panel += 4 * kVnni512Columns) {
    __m512i rows[4];
#pragma GCC unroll 4
    for (unsigned i = 0; i < 4; ++i)
      rows[i] = k0 + i < k_rows ? _mm512_maskz_loadu_epi8(valid, w + (k0 + i) * w_row_stride) : _mm512_setzero_si512();
    const __m512i low01 = _mm512_unpacklo_epi8(rows[0], rows[1]), high01 = _mm512_unpackhi_epi8(rows[0], rows[1]);
    const __m512i low23 = _mm512_unpacklo_epi8(rows[2], rows[3]), high23 = _mm512_unpackhi_epi8(rows[2], rows[3]);
    const __m512i q0 = _mm512_unpacklo_epi16(low01, low23), q1 = _mm512_unpackhi_epi16(low01, low23);
    const __m512i q2 = _mm512_unpacklo_epi16(high01, high23), q3 = _mm512_unpackhi_epi16(high01, high23);
    // Lanes (q, L) -> (L, q): t holds pairs of lanes, then the pairs are split.
    const __m512i t0 = lanes<0x44>(q0, q1), t1 = lanes<0x44>(q2, q3);  // lanes 0, 1 of each
    const __m512i t2 = lanes<0xee>(q0, q1), t3 = lanes<0xee>(q2, q3);  // lanes 2, 3 of each
    const __m512i columns[4] = {lanes<0x88>(t0, t1), lanes<0xdd>(t0, t1), lanes<0x88>(t2, t3), lanes<0xdd>(t2, t3)};
#pragma GCC unroll 4
    for (unsigned v = 0; v < 4; ++v) {
      _mm512_storeu_si512(panel + 64 * v, columns[v]);
      sums[v] = _mm512_dpbusd_epi32(sums[v], ones, columns[v]);
    }
  }
  const __m512i minus_128 = _mm512_set1_epi32(-128);
#pragma GCC unroll 4
  for (unsigned v = 0; v < 4; ++v) _mm512_storeu_si512(correction + 16 * v, _mm512_mullo_epi32(sums[v], minus_128));
  _mm256_zeroupper();
}

constexpr IntKernel kAvx512Int = {"avx512bw-int-8x32", kAvx512Rows, kAvx512Columns, 2, run_avx512_int};
constexpr IntKernel kAvx2Int = {"avx2-int-6x16", kAvx2Rows, kAvx2Columns, 2, run_avx2_int};
constexpr IntKernel kVnni512 = {"avx512vnni-int-6x64", kVnni512Rows, kVnni512Columns, 4, nullptr,
                                IntLayout::kBiasedBytes, run_vnni512, pack_panel_avx512};
constexpr IntKernel kVnni256 = {"avxvnni-int-6x16", kVnni256Rows, kVnni256Columns, 4, nullptr,
                                IntLayout::kBiasedBytes, run_vnni256, pack_panel_avx2<kVnni256Columns>};

}  // namespace

// Fastest first. AVX-512 VNNI and AVX-VNNI come independently (Ice Lake has only the first, Alder
// Lake only the second), so each combination has its list; the int16 kernels need AVX2 / AVX-512BW.
Span<const IntKernel* const> int_kernels_for_this_cpu() {
  static const IntKernel* const all[] = {&kVnni512, &kVnni256, &kAvx512Int, &kAvx2Int, &kPortableIntKernel};
  static const IntKernel* const without_avx_vnni[] = {&kVnni512, &kAvx512Int, &kAvx2Int, &kPortableIntKernel};
  static const IntKernel* const without_avx512[] = {&kVnni256, &kAvx2Int, &kPortableIntKernel};
  const bool avx2 = __builtin_cpu_supports("avx2");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  const bool avx512_vnni = avx512 && __builtin_cpu_supports("avx512vnni");
  const bool avx_vnni = avx2 && __builtin_cpu_supports("avxvnni");
  if (avx512_vnni && avx_vnni) return Span<const IntKernel* const>(all, 5);
  if (avx512_vnni) return Span<const IntKernel* const>(without_avx_vnni, 4);
  if (avx_vnni && !avx512) return Span<const IntKernel* const>(without_avx512, 3);
  if (avx_vnni) return Span<const IntKernel* const>(all + 1, 4);  // AVX-VNNI and AVX-512BW without AVX-512 VNNI
  const size_t first = avx512 ? 2 : avx2 ? 3 : 4;
  return Span<const IntKernel* const>(all + first, 5 - first);
}

}  // namespace rt
#endif
