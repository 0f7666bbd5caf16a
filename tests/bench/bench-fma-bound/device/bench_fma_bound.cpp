// bench-fma-bound: the floating-point rate a core reaches with the MXU float32 kernel's own
// instruction mix and nothing else: the bound a training step's matmuls are measured against on
// qemu-virt-a53 (issue 24: under QEMU, the emulated floating-point bound). The loop is the k step of
// the AArch64 kernel's passes (runtime/mxu/kernels/aarch64.cpp): one `ld1` of four weight registers,
// then 16 `fmla v.4s, v.4s, v.s[lane]` into 16 accumulators (64 multiply-adds), run for about
// kSeconds and timed with the board's clock:
//   BENCH {"bench":"fma_bound/qemu-virt-a53/1core","metric":"gflops","value":G,"unit":"GFLOP/s",...}
// On N cores every core runs the loop at the same time and reports its own rate,
//   BENCH {"bench":"fma_bound/qemu-virt-a53/Ncores/core<c>",...}
// whose sum is the most N cores of this board reach on this machine at once (QEMU's vCPUs are host
// threads: they share the host's CPUs with each other and with everything else running there). Each
// core times its own second; the cores start together, within a boot's skew of each other.
// Weights and activations are 1.0, so every accumulator lane ends at the number of steps (exact below
// 2^24 per call): checked, so a loop that did not run cannot report a rate. The FPSR's inexact flag
// is raised first, as any real step raises it (see raise_inexact). AArch64 boards only: the
// host board's bound is the core's measured FMA peak (tests/bench/baselines/fma_peak.cpp).
#include "firmware/app.hpp"
#include "firmware/bench.hpp"
#include "hal/board.hpp"

namespace {

using rt::Status;

constexpr double kSeconds = 1.0;
constexpr uint64_t kStepsPerCall = 1 << 16;
constexpr double kFlopsPerStep = 2.0 * 64;

#if defined(__aarch64__)
// kStepsPerCall k steps; returns lane 0 of the first accumulator (= the steps).
float fmla_steps(const float* weights, const float* activations) {
  alignas(16) float first[4];
  uint64_t steps = kStepsPerCall;
  asm volatile(
      "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]]\n"
      "movi v16.4s, #0\n movi v17.4s, #0\n movi v18.4s, #0\n movi v19.4s, #0\n"
      "movi v20.4s, #0\n movi v21.4s, #0\n movi v22.4s, #0\n movi v23.4s, #0\n"
      "movi v24.4s, #0\n movi v25.4s, #0\n movi v26.4s, #0\n movi v27.4s, #0\n"
      "movi v28.4s, #0\n movi v29.4s, #0\n movi v30.4s, #0\n movi v31.4s, #0\n"
      "1:\n"
      "ld1 {v12.4s, v13.4s, v14.4s, v15.4s}, [%[w]]\n"
      "fmla v16.4s, v12.4s, v0.s[0]\n fmla v17.4s, v13.4s, v0.s[0]\n"
      "fmla v18.4s, v14.4s, v0.s[0]\n fmla v19.4s, v15.4s, v0.s[0]\n"
      "fmla v20.4s, v12.4s, v1.s[0]\n fmla v21.4s, v13.4s, v1.s[0]\n"
      "fmla v22.4s, v14.4s, v1.s[0]\n fmla v23.4s, v15.4s, v1.s[0]\n"
      "fmla v24.4s, v12.4s, v2.s[0]\n fmla v25.4s, v13.4s, v2.s[0]\n"
      "fmla v26.4s, v14.4s, v2.s[0]\n fmla v27.4s, v15.4s, v2.s[0]\n"
      "fmla v28.4s, v12.4s, v3.s[0]\n fmla v29.4s, v13.4s, v3.s[0]\n"
      "fmla v30.4s, v14.4s, v3.s[0]\n fmla v31.4s, v15.4s, v3.s[0]\n"
      "subs %[n], %[n], #1\n"
      "b.ne 1b\n"
      "st1 {v16.4s}, [%[out]]\n"
      : [n] "+r"(steps)
      : [w] "r"(weights), [a] "r"(activations), [out] "r"(first)
      : "v0", "v1", "v2", "v3", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",
        "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31", "cc", "memory");
  return first[0];
}

// One inexact division, so the FPSR's sticky inexact flag is set as it is in any real computation:
// QEMU emulates float operations with the host's FPU only once that flag is set (it cannot tell
// cheaply whether a result was exact), and with slower software float before.
void raise_inexact() {
  volatile float one = 1.0f, three = 3.0f;
  volatile float third = one / three;
  (void)third;
}

Status measure(unsigned core, unsigned cores) {
  alignas(16) static const float ones[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  raise_inexact();
  uint64_t calls = 0, elapsed = 0;
  const uint64_t start = hal::time_ns();
  do {
    const float lane = fmla_steps(ones, ones);
    if (lane != static_cast<float>(kStepsPerCall))
      return rt::internal_error("an accumulator ended at {}, expected {}", lane, kStepsPerCall);
    ++calls;
    elapsed = hal::time_ns() - start;
  } while (elapsed < static_cast<uint64_t>(kSeconds * 1e9));
  const double flops = kFlopsPerStep * kStepsPerCall * static_cast<double>(calls);
  rt::FixedString<96> name;
  if (cores == 1)
    rt::format_to(name, "fma_bound/{}/1core", hal::board::name());
  else
    rt::format_to(name, "fma_bound/{}/{}cores/core{}", hal::board::name(), cores, core);
  rt::log_info("{} k steps of 16 fmla by lane in {} s", kStepsPerCall * calls, static_cast<double>(elapsed) * 1e-9);
  firmware::bench::report(name.view(), "gflops", flops / static_cast<double>(elapsed), "GFLOP/s",
                          "none (the bound itself)", 1.0);
  return Status::ok();
}
#else
Status measure(unsigned, unsigned) {
  return Status::error(rt::StatusCode::kUnimplemented,
                       "bench-fma-bound runs the AArch64 kernel's fmla mix: an AArch64 board only (qemu-virt-a53)");
}
#endif

Status run(const firmware::CoreContext& context) {
  return measure(context.core, context.cores);
}

}  // namespace

const firmware::App firmware::kApp = {"bench-fma-bound",
                                      "the MXU float32 kernel's fmla mix on every core at once (the step's emulated bound)", run};
