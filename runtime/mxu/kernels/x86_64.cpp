// x86-64 float32 micro-kernels: AVX-512 (up to 12 rows x 32 columns: 24 zmm accumulators), and the
// list of this CPU's kernels, fastest first (AVX2 + FMA3, 6 x 16, is x86_64_avx2.cpp). Per k step a
// kernel loads the panel's row of weights once, broadcasts each activation and issues one vfmadd per accumulator vector: the same
// fma-per-step arithmetic as the portable kernel, so the same bits. Compiled with per-function
// target attributes and chosen at run time from CPUID, so one host binary uses AVX-512 (F, BW and
// VL: every AVX-512 CPU since Skylake-SP) where the CPU has it (the host board itself requires
// AVX2/FMA).
//
// The AVX-512 kernel also has the block entries (FloatKernel::run_block, run_block_bf16): any
// number of rows, walked 12 at a time (the last few with one instantiation per row count, so the
// accumulators stay in registers), and of columns up to 32 (the last vector of weights loaded, and
// of c loaded and stored, under a mask: nothing past the block is read or written), weights with
// any row stride, so the MXU reads weight tiles in place and needs neither padded panels nor edge
// buffers. 24 accumulators hide the FMA latency (4 cycles x 2 pipes needs 8 independent chains)
// with room to spare; per k step 2 weight loads and 12 broadcasts feed 24 FMAs. bfloat16
// activations are widened in the broadcast itself (one vpandd with a broadcast memory operand, as
// many instructions as a float32 broadcast), so they need no packing pass. Before storing, a block
// turns NaNs canonical (12 compares tell whether there is any), which spares matmul its pass over C.
// Asked to pack the weights, the first block stores each row of weights it loads into the packed
// panel and the other blocks read the panel, so matmul's deep panels need no packing pass of their
// own; bfloat16 weights are taken only then, and widened as they are packed. Measured on Zen 5 in
// a 512^3 matmul: a separate pass took 3% of the time; the packing block about 1.3% more than a
// plain one (its two stores a k step, and weights coming from L3, which here overlap with its
// FMAs).
#if defined(__x86_64__)
#include <immintrin.h>

#include "runtime/mxu/float_kernel.hpp"
#include "x86_64_avx2.hpp"
#include "hal/support/panic.hpp"

namespace rt {
namespace {

constexpr unsigned kAvx512Rows = 12, kAvx512Columns = 32;

// How a kernel reads an activation: float32, or bfloat16 widened exactly (its bits in the top half
// of a float32) either alone (a 16-bit load) or from the 32-bit word that ends with it (whose low
// half, the element before it in its row, is masked off: one vpandd with a broadcast memory
// operand, no more instructions than a float32 broadcast). The word form reads a[r][k - 1], so
// it serves k >= 1 of rows with unit k stride; k = 0 reads the element alone, so nothing before
// the row is touched.
enum class Load { kFloat, kBFloat16Alone, kBFloat16Word };

template <Load How, class In>
[[gnu::target("avx512f,avx512bw,avx512vl"), gnu::always_inline]] inline __m512 broadcast(const In* p) {
  if constexpr (How == Load::kFloat) {
    return _mm512_set1_ps(*p);
  } else if constexpr (How == Load::kBFloat16Alone) {
    return _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(uint32_t{*p} << 16)));
  } else {
    uint32_t word;
    __builtin_memcpy(&word, p - 1, sizeof word);
    return _mm512_castsi512_ps(
        _mm512_and_si512(_mm512_set1_epi32(static_cast<int>(word)), _mm512_set1_epi32(static_cast<int>(0xffff0000u))));
  }
}

// 16 weights of a row from w (float32, or bfloat16 widened exactly: zero-extended to 32 bits and
// shifted into the top half), under `mask` when Masked: lanes past it are zero and not read.
template <bool Masked, class W>
[[gnu::target("avx512f,avx512bw,avx512vl"), gnu::always_inline]] inline __m512 load_weights(const W* w,
                                                                                          __mmask16 mask) {
  if constexpr (sizeof(W) == sizeof(float)) {
    return Masked ? _mm512_maskz_loadu_ps(mask, w) : _mm512_loadu_ps(w);
  } else {
    const __m256i bits =
        Masked ? _mm256_maskz_loadu_epi16(mask, w) : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bits), 16));
  }
}

// One k step: the panel's weights for it (with Pack, also stored to `packed`), then Rows x Vectors
// fmas. Activation row r is addressed from one pointer per three rows plus 0, 1 or 2 row strides
// (x86 scaled-index addressing), so the k loop keeps every address in a register: the pointers,
// the row stride, weights, counter.
template <unsigned Rows, unsigned Vectors, bool Masked, bool Pack, Load How, class In, class W>
[[gnu::target("avx512f,avx512bw,avx512vl"), gnu::always_inline]] inline void avx512_step(
    __m512 (&acc)[Rows][Vectors], const In* const* group, int64_t a_row_stride, const W* w, __mmask16 last,
    float* packed) {
  __m512 weights[Vectors];
#pragma GCC unroll 4
  for (unsigned v = 0; v < Vectors; ++v)
    weights[v] = Masked && v + 1 == Vectors ? load_weights<true>(w + 16 * v, last) : load_weights<false>(w + 16 * v, 0);
  if constexpr (Pack) {
#pragma GCC unroll 4
    for (unsigned v = 0; v < Vectors; ++v) _mm512_storeu_ps(packed + 16 * v, weights[v]);
  }
#pragma GCC unroll 16
  for (unsigned r = 0; r < Rows; ++r) {
    const __m512 x = broadcast<How>(group[r / 3] + (r % 3) * a_row_stride);
#pragma GCC unroll 4
    for (unsigned v = 0; v < Vectors; ++v) acc[r][v] = _mm512_fmadd_ps(x, weights[v], acc[r][v]);
  }
}

// Every NaN among the accumulators becomes the canonical quiet NaN 0x7fc00000 (float_kernel.hpp).
// The check compares the accumulators two at a time (an unordered compare is true when either is
// a NaN: 12 compares for 24 vectors, independent of each other, their masks OR'ed); only when one
// is found does each accumulator get compared and blended. Measured on Zen 5 over 42 blocks of a
// 512-deep panel: 0.3% faster than a sum of all accumulators in four chains of vaddps.
template <unsigned Rows, unsigned Vectors>
[[gnu::target("avx512f,avx512bw,avx512vl"), gnu::always_inline]] inline void canonicalise_nans(
    __m512 (&acc)[Rows][Vectors]) {
  constexpr unsigned kCount = Rows * Vectors;
  unsigned any_nan = 0;
#pragma GCC unroll 64
  for (unsigned i = 0; i < kCount; i += 2) {
    const unsigned j = i + 1 < kCount ? i + 1 : i;
    any_nan |= _mm512_cmp_ps_mask(acc[i / Vectors][i % Vectors], acc[j / Vectors][j % Vectors], _CMP_UNORD_Q);
  }
  if (__builtin_expect(any_nan == 0, 1)) return;
  const __m512 canonical = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000));
#pragma GCC unroll 16
  for (unsigned r = 0; r < Rows; ++r)
#pragma GCC unroll 4
    for (unsigned v = 0; v < Vectors; ++v)
      acc[r][v] = _mm512_mask_mov_ps(acc[r][v], _mm512_cmp_ps_mask(acc[r][v], acc[r][v], _CMP_UNORD_Q), canonical);
}

// c[r][0 .. 16 * Vectors) (+)= a[r][k] * w[k][..] for r < Rows, the accumulators in registers for
// the whole k loop. Masked: the last vector of each row covers only the columns in `last` (a lane
// mask; weights past them are not read, c past them not written); otherwise every vector covers
// 16 columns. In: float (any strides) or uint16_t (bfloat16 bits, a_k_stride 1); W likewise for
// the weights (bfloat16 only when packing them). Pack: weight row k is also stored at
// packed[k * kAvx512Columns], 16 * Vectors floats (zero past the mask).
template <unsigned Rows, unsigned Vectors, bool Masked, bool Pack, class In, class W = float>
[[gnu::target("avx512f,avx512bw,avx512vl"), gnu::always_inline]] inline void avx512_block(
    const In* a, int64_t a_row_stride, int64_t a_k_stride, const W* w, int64_t w_row_stride, unsigned k_rows,
    __mmask16 last, float* c, int64_t c_row_stride, bool accumulate, float* packed) {
  constexpr unsigned kGroups = (Rows + 2) / 3;
  constexpr bool kFloat = sizeof(In) == sizeof(float);
  __m512 acc[Rows][Vectors];
#pragma GCC unroll 16
  for (unsigned r = 0; r < Rows; ++r)
#pragma GCC unroll 4
    for (unsigned v = 0; v < Vectors; ++v)
      acc[r][v] = accumulate ? _mm512_maskz_loadu_ps(Masked && v + 1 == Vectors ? last : __mmask16(0xffff),
                                                     c + r * c_row_stride + 16 * v)
                             : _mm512_setzero_ps();
  const In* group[kGroups];
#pragma GCC unroll 8
  for (unsigned g = 0; g < kGroups; ++g) group[g] = a + 3 * g * a_row_stride;
  unsigned k = 0;
  if constexpr (!kFloat) {
    if (k_rows > 0) {  // bfloat16 k = 0: each element alone
      avx512_step<Rows, Vectors, Masked, Pack, Load::kBFloat16Alone>(acc, group, a_row_stride, w, last, packed);
      k = 1;
      w += w_row_stride;
      if constexpr (Pack) packed += kAvx512Columns;
#pragma GCC unroll 8
      for (unsigned g = 0; g < kGroups; ++g) group[g] += a_k_stride;
    }
  }
  for (; k < k_rows; ++k, w += w_row_stride) {
    avx512_step<Rows, Vectors, Masked, Pack, kFloat ? Load::kFloat : Load::kBFloat16Word>(acc, group, a_row_stride, w,
                                                                                         last, packed);
    if constexpr (Pack) packed += kAvx512Columns;
#pragma GCC unroll 8
    for (unsigned g = 0; g < kGroups; ++g) group[g] += a_k_stride;
  }
  canonicalise_nans(acc);
#pragma GCC unroll 16
  for (unsigned r = 0; r < Rows; ++r)
#pragma GCC unroll 4
    for (unsigned v = 0; v < Vectors; ++v)
      _mm512_mask_storeu_ps(c + r * c_row_stride + 16 * v, Masked && v + 1 == Vectors ? last : __mmask16(0xffff),
                            acc[r][v]);
  _mm256_zeroupper();  // leave no dirty upper halves: later SSE code (libm) would pay for them
}

__mmask16 last_columns(unsigned columns) {
  return static_cast<__mmask16>(columns % 16 == 0 ? 0xffffu : (1u << (columns % 16)) - 1);
}

// One block of Rows rows; one instantiation per row count, full panels without masks in the k
// loop, partial ones with.
template <unsigned Rows, class In>
[[gnu::target("avx512f,avx512bw,avx512vl")]] void avx512_rows(const In* a, int64_t a_row_stride, int64_t a_k_stride,
                                                              const float* w, int64_t w_row_stride, unsigned k_rows,
                                                              unsigned columns, float* c, int64_t c_row_stride,
                                                              bool accumulate) {
  const __mmask16 last = last_columns(columns);
  if (columns == 32)
    avx512_block<Rows, 2, false, false>(a, a_row_stride, a_k_stride, w, w_row_stride, k_rows, last, c, c_row_stride,
                                        accumulate, nullptr);
  else if (columns > 16)
    avx512_block<Rows, 2, true, false>(a, a_row_stride, a_k_stride, w, w_row_stride, k_rows, last, c, c_row_stride,
                                       accumulate, nullptr);
  else
    avx512_block<Rows, 1, true, false>(a, a_row_stride, a_k_stride, w, w_row_stride, k_rows, last, c, c_row_stride,
                                       accumulate, nullptr);
}

template <class In>
using BlockFunction = void (*)(const In*, int64_t, int64_t, const float*, int64_t, unsigned, unsigned, float*, int64_t,
                               bool);

template <unsigned Rows, class In>
constexpr BlockFunction<In> avx512_rows_or_null() {
  if constexpr (Rows >= 1 && Rows <= kAvx512Rows)
    return avx512_rows<Rows, In>;
  else
    return nullptr;
}

// Indexed by the block's row count.
template <class In>
constexpr BlockFunction<In> kAvx512Blocks[] = {
    avx512_rows_or_null<0, In>(),  avx512_rows_or_null<1, In>(),  avx512_rows_or_null<2, In>(),
    avx512_rows_or_null<3, In>(),  avx512_rows_or_null<4, In>(),  avx512_rows_or_null<5, In>(),
    avx512_rows_or_null<6, In>(),  avx512_rows_or_null<7, In>(),  avx512_rows_or_null<8, In>(),
    avx512_rows_or_null<9, In>(),  avx512_rows_or_null<10, In>(), avx512_rows_or_null<11, In>(),
    avx512_rows_or_null<12, In>(), avx512_rows_or_null<13, In>(), avx512_rows_or_null<14, In>(),
    avx512_rows_or_null<15, In>(), avx512_rows_or_null<16, In>()};
static_assert(kAvx512Rows <= kMaxKernelRows && kAvx512Rows <= kMaxPackedKStride &&
              kAvx512Rows < sizeof kAvx512Blocks<float> / sizeof kAvx512Blocks<float>[0]);

// `count` blocks of 12 rows, one after another in one loop (no call per block); with `packed`, the
// first stores the weights it reads there (widened, if bfloat16) and the others read them from it.
template <unsigned Vectors, bool Masked, class In>
[[gnu::target("avx512f,avx512bw,avx512vl"), gnu::always_inline]] inline void avx512_full_blocks(
    const In* a, int64_t a_row_stride, int64_t a_k_stride, BlockWeights weights, unsigned k_rows, unsigned count,
    __mmask16 last, float* c, int64_t c_row_stride, bool accumulate, float* packed) {
  const float* w = static_cast<const float*>(weights.data);
  int64_t w_row_stride = weights.row_stride;
  unsigned block = 0;
  if (packed != nullptr) {
    if (weights.bfloat16)
      avx512_block<kAvx512Rows, Vectors, Masked, true>(a, a_row_stride, a_k_stride,
                                                       static_cast<const uint16_t*>(weights.data), w_row_stride, k_rows,
                                                       last, c, c_row_stride, accumulate, packed);
    else
      avx512_block<kAvx512Rows, Vectors, Masked, true>(a, a_row_stride, a_k_stride, w, w_row_stride, k_rows, last, c,
                                                       c_row_stride, accumulate, packed);
    w = packed;
    w_row_stride = kAvx512Columns;
    block = 1;
  }
  for (; block < count; ++block)
    avx512_block<kAvx512Rows, Vectors, Masked, false>(a + int64_t{block} * kAvx512Rows * a_row_stride, a_row_stride,
                                                      a_k_stride, w, w_row_stride, k_rows, last,
                                                      c + int64_t{block} * kAvx512Rows * c_row_stride, c_row_stride,
                                                      accumulate, nullptr);
}

// The block entries: full blocks of 12 rows in one loop, then the rest (fewer than 12) in one
// block of its own row count.
template <class In>
[[gnu::target("avx512f,avx512bw,avx512vl")]] void avx512_blocks(const In* a, int64_t a_row_stride, int64_t a_k_stride,
                                                                BlockWeights weights, unsigned k_rows, unsigned rows,
                                                                unsigned columns, float* c, int64_t c_row_stride,
                                                                bool accumulate, float* packed) {
  if (weights.bfloat16 && packed == nullptr)
    panic("AVX-512 block kernel: bfloat16 weights need pack_to (they are widened into the packed panel)");
  const unsigned full = rows / kAvx512Rows, rest = rows % kAvx512Rows;
  if (full > 0) {
    const __mmask16 last = last_columns(columns);
    if (columns == 32)
      avx512_full_blocks<2, false>(a, a_row_stride, a_k_stride, weights, k_rows, full, last, c, c_row_stride,
                                   accumulate, packed);
    else if (columns > 16)
      avx512_full_blocks<2, true>(a, a_row_stride, a_k_stride, weights, k_rows, full, last, c, c_row_stride,
                                  accumulate, packed);
    else
      avx512_full_blocks<1, true>(a, a_row_stride, a_k_stride, weights, k_rows, full, last, c, c_row_stride,
                                  accumulate, packed);
  } else if (packed != nullptr) {
    copy_to_packed_panel(weights, k_rows, columns, kAvx512Columns, packed);  // fewer rows than a block: rare
  }
  if (rest == 0) return;
  const float* w = packed != nullptr ? packed : static_cast<const float*>(weights.data);
  const int64_t w_row_stride = packed != nullptr ? int64_t{kAvx512Columns} : weights.row_stride;
  const int64_t done = int64_t{full} * kAvx512Rows;
  kAvx512Blocks<In>[rest](a + done * a_row_stride, a_row_stride, a_k_stride, w, w_row_stride, k_rows, columns,
                          c + done * c_row_stride, c_row_stride, accumulate);
}

void run_block_avx512(const float* a, int64_t a_row_stride, int64_t a_k_stride, BlockWeights w, unsigned k_rows,
                      unsigned rows, unsigned columns, float* c, int64_t c_row_stride, bool accumulate, float* packed) {
  avx512_blocks<float>(a, a_row_stride, a_k_stride, w, k_rows, rows, columns, c, c_row_stride, accumulate, packed);
}

void run_block_bf16_avx512(const uint16_t* a, int64_t a_row_stride, BlockWeights w, unsigned k_rows, unsigned rows,
                           unsigned columns, float* c, int64_t c_row_stride, bool accumulate, float* packed) {
  avx512_blocks<uint16_t>(a, a_row_stride, 1, w, k_rows, rows, columns, c, c_row_stride, accumulate, packed);
}

// The full-block entry (FloatKernel::run): packed panels, kAvx512Rows rows, all 32 columns.
[[gnu::target("avx512f,avx512bw,avx512vl")]] void run_avx512(const float* a, int64_t a_row_stride, int64_t a_k_stride,
                                                             const float* w, unsigned k_rows, float* c,
                                                             int64_t c_row_stride, bool accumulate) {
  avx512_block<kAvx512Rows, 2, false, false>(a, a_row_stride, a_k_stride, w, kAvx512Columns, k_rows, 0xffff, c,
                                             c_row_stride, accumulate, nullptr);
}

constexpr FloatKernel kAvx512 = {"avx512-12x32", kAvx512Rows, kAvx512Columns, 0, run_avx512, run_block_avx512,
                                 run_block_bf16_avx512};

}  // namespace

// Fastest first; a suffix of this list is what the CPU supports (AVX-512 implies AVX2 + FMA).
Span<const FloatKernel* const> float_kernels_for_this_cpu() {
  static const FloatKernel* const kernels[] = {&kAvx512, &kAvx2FloatKernel, &kPortableFloatKernel};
  size_t first = 2;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) first = 1;
  if (first == 1 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    first = 0;
  return Span<const FloatKernel* const>(kernels + first, 3 - first);
}

}  // namespace rt
#endif
