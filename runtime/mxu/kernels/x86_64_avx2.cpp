// x86-64 AVX2 + FMA3 float32 micro-kernel (6 rows x 16 columns: 12 ymm accumulators), for the
// x86-64 CPUs without AVX-512 (AMD before Zen 4, Intel client cores): the full-block entry
// (FloatKernel::run, packed panels) and the block entry (FloatKernel::run_block) that lets the MXU
// skip packing and edge buffers. Per k step a kernel loads the row of weights once (two vectors),
// broadcasts each row's activation and issues one vfmadd per accumulator: the fma-per-step
// arithmetic of every kernel (float_kernel.hpp), so the same bits as the portable loop.
//
// The block entry takes any number of rows, walked 6 at a time (the last few with one
// instantiation per row count, so the accumulators stay in registers), 1 to 16 columns (the last
// vector of weights and of c loaded and stored under a mask: vmaskmovps reads and writes nothing in
// masked-off lanes, so nothing past the block is touched), weights with any row stride and
// activations with any strides. So matmul reads a weight tile where it lies and runs a batch of 32
// rows by 10 columns (a classifier's last layer) without packing a panel or copying an edge block.
// Before storing, NaNs are made canonical (float_kernel.hpp). Asked to pack (pack_to), it copies
// the weights into the panel first (bfloat16 ones widened) and reads the panel: the AVX2 kernel has
// only 16 ymm registers, 12 of them accumulators, and no room to store each row as it goes.
#if defined(__x86_64__)
#include "x86_64_avx2.hpp"

#include <immintrin.h>

#include "hal/support/panic.hpp"

namespace rt {
namespace {

constexpr unsigned kAvx2Rows = 6, kAvx2Columns = 16;

// The lanes of the last vector of a row that hold columns: all 8, or the first `columns % 8`.
[[gnu::target("avx2,fma")]] __m256i last_lanes(unsigned columns) {
  const unsigned valid = columns % 8 == 0 ? 8 : columns % 8;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(valid)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <bool Masked>
[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256 load(const float* p, __m256i mask) {
  return Masked ? _mm256_maskload_ps(p, mask) : _mm256_loadu_ps(p);
}

template <bool Masked>
[[gnu::target("avx2,fma"), gnu::always_inline]] inline void store(float* p, __m256i mask, __m256 value) {
  if (Masked)
    _mm256_maskstore_ps(p, mask, value);
  else
    _mm256_storeu_ps(p, value);
}

// Every NaN among the accumulators becomes the canonical quiet NaN 0x7fc00000: pairs compared
// unordered (true when either is a NaN), their masks OR'ed; only when one is found is each blended.
template <unsigned Rows, unsigned Vectors>
[[gnu::target("avx2,fma"), gnu::always_inline]] inline void canonicalise_nans(__m256 (&acc)[Rows][Vectors]) {
  constexpr unsigned kCount = Rows * Vectors;
  __m256 any = _mm256_setzero_ps();
#pragma GCC unroll 12
  for (unsigned i = 0; i < kCount; i += 2) {
    const unsigned j = i + 1 < kCount ? i + 1 : i;
    any = _mm256_or_ps(any, _mm256_cmp_ps(acc[i / Vectors][i % Vectors], acc[j / Vectors][j % Vectors], _CMP_UNORD_Q));
  }
  if (__builtin_expect(_mm256_movemask_ps(any) == 0, 1)) return;
  const __m256 canonical = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
#pragma GCC unroll 6
  for (unsigned r = 0; r < Rows; ++r)
#pragma GCC unroll 2
    for (unsigned v = 0; v < Vectors; ++v)
      acc[r][v] = _mm256_blendv_ps(acc[r][v], canonical, _mm256_cmp_ps(acc[r][v], acc[r][v], _CMP_UNORD_Q));
}

// c[r][0 .. 8 * Vectors) (+)= a[r][k] * w[k][..] for r < Rows, the accumulators in registers for the
// whole k loop. Masked: the last vector of each row covers only the lanes in `last`.
template <unsigned Rows, unsigned Vectors, bool Masked>
[[gnu::target("avx2,fma"), gnu::always_inline]] inline void avx2_block(const float* a, int64_t a_row_stride,
                                                                        int64_t a_k_stride, const float* w,
                                                                        int64_t w_row_stride, unsigned k_rows,
                                                                        __m256i last, float* c, int64_t c_row_stride,
                                                                        bool accumulate) {
  __m256 acc[Rows][Vectors];
#pragma GCC unroll 6
  for (unsigned r = 0; r < Rows; ++r)
#pragma GCC unroll 2
    for (unsigned v = 0; v < Vectors; ++v)
      acc[r][v] = !accumulate                 ? _mm256_setzero_ps()
                  : Masked && v + 1 == Vectors ? load<true>(c + r * c_row_stride + 8 * v, last)
                                               : load<false>(c + r * c_row_stride + 8 * v, last);
  for (unsigned k = 0; k < k_rows; ++k, w += w_row_stride, a += a_k_stride) {
    __m256 weights[Vectors];
#pragma GCC unroll 2
    for (unsigned v = 0; v < Vectors; ++v)
      weights[v] = Masked && v + 1 == Vectors ? load<true>(w + 8 * v, last) : load<false>(w + 8 * v, last);
#pragma GCC unroll 6
    for (unsigned r = 0; r < Rows; ++r) {
      const __m256 x = _mm256_broadcast_ss(a + r * a_row_stride);
#pragma GCC unroll 2
      for (unsigned v = 0; v < Vectors; ++v) acc[r][v] = _mm256_fmadd_ps(x, weights[v], acc[r][v]);
    }
  }
  canonicalise_nans(acc);
#pragma GCC unroll 6
  for (unsigned r = 0; r < Rows; ++r)
#pragma GCC unroll 2
    for (unsigned v = 0; v < Vectors; ++v) {
      if (Masked && v + 1 == Vectors)
        store<true>(c + r * c_row_stride + 8 * v, last, acc[r][v]);
      else
        store<false>(c + r * c_row_stride + 8 * v, last, acc[r][v]);
    }
}

// One block of Rows rows and 1 .. 16 columns: full panels without masks in the k loop.
template <unsigned Rows>
[[gnu::target("avx2,fma")]] void avx2_rows(const float* a, int64_t a_row_stride, int64_t a_k_stride, const float* w,
                                           int64_t w_row_stride, unsigned k_rows, unsigned columns, float* c,
                                           int64_t c_row_stride, bool accumulate) {
  const __m256i last = last_lanes(columns);
  if (columns == 16)
    avx2_block<Rows, 2, false>(a, a_row_stride, a_k_stride, w, w_row_stride, k_rows, last, c, c_row_stride, accumulate);
  else if (columns > 8)
    avx2_block<Rows, 2, true>(a, a_row_stride, a_k_stride, w, w_row_stride, k_rows, last, c, c_row_stride, accumulate);
  else if (columns == 8)
    avx2_block<Rows, 1, false>(a, a_row_stride, a_k_stride, w, w_row_stride, k_rows, last, c, c_row_stride, accumulate);
  else
    avx2_block<Rows, 1, true>(a, a_row_stride, a_k_stride, w, w_row_stride, k_rows, last, c, c_row_stride, accumulate);
  _mm256_zeroupper();  // leave no dirty upper halves: later SSE code (libm) would pay for them
}

using BlockFunction = void (*)(const float*, int64_t, int64_t, const float*, int64_t, unsigned, unsigned, float*,
                               int64_t, bool);
// Indexed by the block's row count (1 .. kAvx2Rows).
constexpr BlockFunction kAvx2Blocks[] = {nullptr,      avx2_rows<1>, avx2_rows<2>, avx2_rows<3>,
                                         avx2_rows<4>, avx2_rows<5>, avx2_rows<6>};
static_assert(sizeof kAvx2Blocks / sizeof kAvx2Blocks[0] == kAvx2Rows + 1);

// The block entry: the weights packed first when asked, then blocks of 6 rows, then the rest.
void run_block_avx2(const float* a, int64_t a_row_stride, int64_t a_k_stride, BlockWeights weights, unsigned k_rows,
                    unsigned rows, unsigned columns, float* c, int64_t c_row_stride, bool accumulate, float* pack_to) {
  if (weights.bfloat16 && pack_to == nullptr)
    panic("AVX2 block kernel: bfloat16 weights need pack_to (they are widened into the packed panel)");
  const float* w = static_cast<const float*>(weights.data);
  int64_t w_row_stride = weights.row_stride;
  if (pack_to != nullptr) {
    copy_to_packed_panel(weights, k_rows, columns, kAvx2Columns, pack_to);
    w = pack_to;
    w_row_stride = kAvx2Columns;
  }
  unsigned done = 0;
  for (; done + kAvx2Rows <= rows; done += kAvx2Rows)
    kAvx2Blocks[kAvx2Rows](a + int64_t{done} * a_row_stride, a_row_stride, a_k_stride, w, w_row_stride, k_rows, columns,
                           c + int64_t{done} * c_row_stride, c_row_stride, accumulate);
  if (done < rows)
    kAvx2Blocks[rows - done](a + int64_t{done} * a_row_stride, a_row_stride, a_k_stride, w, w_row_stride, k_rows,
                             columns, c + int64_t{done} * c_row_stride, c_row_stride, accumulate);
}

// The full-block entry (FloatKernel::run): kAvx2Rows rows, all 16 columns of a packed panel.
[[gnu::target("avx2,fma")]] void run_avx2(const float* a, int64_t a_row_stride, int64_t a_k_stride, const float* w,
                                          unsigned k_rows, float* c, int64_t c_row_stride, bool accumulate) {
  avx2_block<kAvx2Rows, 2, false>(a, a_row_stride, a_k_stride, w, kAvx2Columns, k_rows, _mm256_setzero_si256(), c,
                                  c_row_stride, accumulate);
  _mm256_zeroupper();
}

}  // namespace

const FloatKernel kAvx2FloatKernel = {"avx2-6x16", kAvx2Rows, kAvx2Columns, 0, run_avx2, run_block_avx2};

}  // namespace rt
#endif
