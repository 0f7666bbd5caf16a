// Peak multiply-add throughput of one x86-64 core, for `make bench` (the "peak" the GEMM lines are
// compared with). Each measurement is a loop of independent accumulator chains, every chain one
// multiply-add instruction per iteration on register operands only (no loads, no stores), so the
// only limit is how many of those instructions the core retires per cycle: with enough chains to
// cover latency x throughput (4-5 cycles x 2 per cycle on current cores, so 8-10) the loop runs at
// the core's peak. The loop is written in assembly so the compiler cannot reorder, spill or drop
// anything; chain counts 1, 4, 8, 12 and 14 are all measured and the best is the peak (the 1-chain
// figure is the latency-bound rate; peak / that = instructions in flight).
//
// Instructions, each run only when CPUID (__builtin_cpu_supports) reports it:
//   f32   vfmadd231ps zmm (AVX-512F, 16 lanes x 2 flops)  and ymm (FMA3/AVX2, 8 lanes x 2 flops)
//   bf16  vdpbf16ps zmm (AVX512_BF16: 32 bf16 products summed in pairs into 16 f32, 64 flops)
//   int8  vpdpbusd zmm (AVX512_VNNI: 64 u8 x s8 products summed in fours into 16 int32, 128 ops)
//         and ymm with the VEX encoding (AVX-VNNI, 64 ops)
//   int16 vpdpwssd zmm (AVX512_VNNI: 32 s16 x s16 products in pairs, 64 ops): the ceiling of
//         int8 kernels that widen to int16 first
// One op = one multiply or one add, as GEMM counts 2*M*N*K. One thread; each figure is the best of
// several timed runs of about 20 ms. Prints one JSON line per instruction:
//   {"bench": "peak", "metric", "value", "unit", "baseline": "1 dependent chain ...", "ratio", ...}
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace {

// Runs `iterations` iterations of the loop; `sources` points to two 64-byte operand vectors.
using Loop = void (*)(const void* sources, long iterations);

// Accumulators are registers 0..chains-1; the two sources are registers 14 and 15 (below 16, so
// the VEX-only AVX2 and AVX-VNNI forms can use them too).
#define PEAK_ACC_1 "0"
#define PEAK_ACC_4 "0,1,2,3"
#define PEAK_ACC_8 "0,1,2,3,4,5,6,7"
#define PEAK_ACC_12 "0,1,2,3,4,5,6,7,8,9,10,11"
#define PEAK_ACC_14 "0,1,2,3,4,5,6,7,8,9,10,11,12,13"

// LOAD moves 64 (or 32) bytes into a register of width V ("zmm"/"ymm"); INSN is the multiply-add,
// AT&T order (source2, source1, accumulator).
#define PEAK_LOOP(NAME, LOAD, V, INSN, ACC)                                                            \
  void NAME(const void* sources, long iterations) {                                                    \
    asm volatile(LOAD " (%[s]), %%" V "14\n\t" LOAD " 64(%[s]), %%" V "15\n\t"                          \
                 ".irp acc," ACC "\n\tvpxor %%xmm\\acc, %%xmm\\acc, %%xmm\\acc\n\t.endr\n"             \
                 "1:\n\t"                                                                              \
                 ".irp acc," ACC "\n\t" INSN " %%" V "15, %%" V "14, %%" V "\\acc\n\t.endr\n\t"         \
                 "dec %[n]\n\t"                                                                        \
                 "jnz 1b\n\t"                                                                          \
                 "vzeroupper"                                                                          \
                 : [n] "+r"(iterations)                                                                \
                 : [s] "r"(sources)                                                                    \
                 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",        \
                   "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc", "memory");              \
  }

#define PEAK_LOOPS(PREFIX, LOAD, V, INSN)           \
  PEAK_LOOP(PREFIX##_1, LOAD, V, INSN, PEAK_ACC_1)   \
  PEAK_LOOP(PREFIX##_4, LOAD, V, INSN, PEAK_ACC_4)   \
  PEAK_LOOP(PREFIX##_8, LOAD, V, INSN, PEAK_ACC_8)   \
  PEAK_LOOP(PREFIX##_12, LOAD, V, INSN, PEAK_ACC_12) \
  PEAK_LOOP(PREFIX##_14, LOAD, V, INSN, PEAK_ACC_14)

PEAK_LOOPS(fma_zmm, "vmovdqu64", "zmm", "vfmadd231ps")
PEAK_LOOPS(fma_ymm, "vmovdqu", "ymm", "vfmadd231ps")
PEAK_LOOPS(bf16_zmm, "vmovdqu64", "zmm", "vdpbf16ps")
PEAK_LOOPS(vnni_zmm, "vmovdqu64", "zmm", "vpdpbusd")
PEAK_LOOPS(vnni_ymm, "vmovdqu", "ymm", "%{vex%} vpdpbusd")
PEAK_LOOPS(vnni16_zmm, "vmovdqu64", "zmm", "vpdpwssd")

constexpr int kChains[] = {1, 4, 8, 12, 14};

struct Instruction {
  const char* dtype;        // what the GEMM lines match it with
  const char* name;         // instruction and register width
  const char* isa;          // the CPUID feature(s) it needs, as named in the output
  bool supported;
  double ops_per_instruction;
  const char* unit;
  Loop loops[5];            // one per kChains entry
};

using Clock = std::chrono::steady_clock;

double seconds(Loop loop, const void* sources, long iterations) {
  const auto start = Clock::now();
  loop(sources, iterations);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Instructions per second of `loop` with `chains` chains: iterations calibrated to ~20 ms, then the
// best of `runs` timed runs.
double instructions_per_second(Loop loop, int chains, const void* sources, int runs) {
  long iterations = 1 << 12;
  while (seconds(loop, sources, iterations) < 0.005) iterations *= 2;
  iterations = std::max(1L, long(double(iterations) * 0.02 / std::max(seconds(loop, sources, iterations), 1e-6)));
  double best = 1e30;
  for (int run = 0; run < runs; ++run) best = std::min(best, seconds(loop, sources, iterations));
  return double(iterations) * chains / best;
}

}  // namespace

int main() {
  // Small normal operands (no denormals, no overflow: a chain's value grows by 2^-20 per step at
  // most); for the integer forms the same bytes are just integers.
  alignas(64) float sources[32];
  for (int i = 0; i < 32; ++i) sources[i] = 1.0f / 1024;
  const bool avx512f = __builtin_cpu_supports("avx512f");
  const Instruction instructions[] = {
      {"f32", "vfmadd231ps zmm", "avx512f", avx512f, 32, "GFLOP/s",
       {fma_zmm_1, fma_zmm_4, fma_zmm_8, fma_zmm_12, fma_zmm_14}},
      {"f32", "vfmadd231ps ymm", "fma (AVX2)", __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2"), 16,
       "GFLOP/s", {fma_ymm_1, fma_ymm_4, fma_ymm_8, fma_ymm_12, fma_ymm_14}},
      {"bf16", "vdpbf16ps zmm", "avx512bf16", avx512f && __builtin_cpu_supports("avx512bf16"), 64, "GFLOP/s",
       {bf16_zmm_1, bf16_zmm_4, bf16_zmm_8, bf16_zmm_12, bf16_zmm_14}},
      {"int8", "vpdpbusd zmm", "avx512vnni", avx512f && __builtin_cpu_supports("avx512vnni"), 128, "GOP/s",
       {vnni_zmm_1, vnni_zmm_4, vnni_zmm_8, vnni_zmm_12, vnni_zmm_14}},
      {"int8", "vpdpbusd ymm (VEX)", "avxvnni", __builtin_cpu_supports("avxvnni") != 0, 64, "GOP/s",
       {vnni_ymm_1, vnni_ymm_4, vnni_ymm_8, vnni_ymm_12, vnni_ymm_14}},
      {"int16", "vpdpwssd zmm", "avx512vnni", avx512f && __builtin_cpu_supports("avx512vnni"), 64, "GOP/s",
       {vnni16_zmm_1, vnni16_zmm_4, vnni16_zmm_8, vnni16_zmm_12, vnni16_zmm_14}},
  };
  constexpr int kRuns = 5;
  int printed = 0;
  for (const Instruction& instruction : instructions) {
    if (!instruction.supported) {
      std::fprintf(stderr, "fma_peak: %s skipped, this CPU lacks %s\n", instruction.name, instruction.isa);
      continue;
    }
    double rates[5];
    int best = 0;
    for (int i = 0; i < 5; ++i) {
      rates[i] = instructions_per_second(instruction.loops[i], kChains[i], sources, kRuns);
      if (rates[i] > rates[best]) best = i;
    }
    const double scale = instruction.ops_per_instruction * 1e-9;
    std::printf("{\"bench\": \"peak\", \"metric\": \"%s %s (%s)\", \"value\": %.2f, \"unit\": \"%s\", "
                "\"baseline\": \"1 dependent chain of the same instruction (latency-bound)\", \"ratio\": %.3f, "
                "\"dtype\": \"%s\", \"instruction\": \"%s\", \"isa\": \"%s\", \"ops_per_instruction\": %g, "
                "\"chains\": %d, \"instructions_per_ns\": %.3f, \"by_chains\": {",
                instruction.dtype, instruction.name, instruction.isa, rates[best] * scale, instruction.unit,
                rates[best] / rates[0], instruction.dtype, instruction.name, instruction.isa,
                instruction.ops_per_instruction, kChains[best], rates[best] * 1e-9);
    for (int i = 0; i < 5; ++i) std::printf("%s\"%d\": %.2f", i ? ", " : "", kChains[i], rates[i] * scale);
    std::printf("}, \"statistic\": \"best of %d runs of ~20 ms per chain count, best chain count\", "
                "\"threads\": 1}\n", kRuns);
    ++printed;
  }
  return printed ? 0 : 1;
}
