// mxu-kernels: every MXU micro-kernel this CPU offers (float32: NEON on AArch64, AVX-512 / AVX2 on
// x86-64, the portable one everywhere; int8: VNNI / AVX-512BW / AVX2 on x86-64, the portable one
// everywhere), bit for bit against naive loops written here, so the kernels that the host's unit
// tests never run (AArch64, RISC-V) are checked kernel by kernel on their own boards:
//   1. at the kernel interface, operands packed here from the layouts the headers define
//      (float_kernel.hpp, int_kernel.hpp): K = 0, 1 and every remainder of the kernels' k unrolling
//      up to 64 and beyond, accumulate on and off, every activation layout, padded c rows (which
//      must survive), signed zeros, infinities, denormals and huge values; for int8, -128 / 127
//      everywhere, K long enough that the int32 sums wrap, and (kBiasedBytes) partial row blocks
//      and the kernel's own panel packing;
//   2. through the public API (rt::matmul, Mxu::load_weights / stream) on an Mxu built with the
//      kernel: random M, N, K around the tile and the kernel's block, transposed A and B, strided C,
//      accumulate mode, float32, bfloat16 and int8.
// Float reference: one __builtin_fmaf per k step, k ascending, from c (accumulate) or +0; int8:
// int32 sums mod 2^32 in uint32 arithmetic. Core 0 checks (the kernels are the same on every core);
// the other cores of a board with a fixed core count just pass.
#include "hal/time.hpp"
#include "runtime/log/log.hpp"
#include "suite.hpp"
#include "runtime/mxu/board_tile.hpp"

namespace mxu_kernels {

const char* fill_name(FloatFill fill) {
  switch (fill) {
    case FloatFill::kNormal: return "normal";
    case FloatFill::kSpecials: return "specials";
    case FloatFill::kNegativeZeros: return "negative-zeros";
  }
  return "?";
}

const char* fill_name(IntFill fill) {
  switch (fill) {
    case IntFill::kRandom: return "random";
    case IntFill::kExtremes: return "extremes";
    case IntFill::kMinimum: return "all-128";
    case IntFill::kMaximum: return "all127";
    case IntFill::kMinTimesMax: return "-128x127";
  }
  return "?";
}

namespace {

// sign, biased exponent and 23 random mantissa bits.
float make_float(Random& random, uint32_t biased_exponent) {
  const uint32_t sign = random.coin() ? 0x80000000u : 0u;
  return float_of(sign | biased_exponent << 23 | static_cast<uint32_t>(random.next() & 0x7fffffu));
}

float normal_float(Random& random) { return make_float(random, 127 - 6 + random.below(13)); }  // 2^-6 .. 2^7

}  // namespace

float random_float(Random& random, FloatFill fill) {
  if (fill == FloatFill::kNegativeZeros) return -0.0f;
  if (fill == FloatFill::kNormal || random.coin()) return normal_float(random);
  const uint32_t sign = random.coin() ? 0x80000000u : 0u;
  switch (random.below(9)) {
    case 0: return float_of(sign);                                            // +-0
    case 1: return float_of(sign | 0x7f800000u);                              // +-inf
    case 2: return make_float(random, 0);                                     // denormal (or zero)
    case 3: return float_of(sign | 1u);                                       // the smallest denormal
    case 4: return make_float(random, 254 - random.below(28));               // huge: 2^100 .. 2^127
    case 5: return float_of(sign | 0x7f7fffffu);                              // the largest finite
    case 6: return make_float(random, 1 + random.below(8));                   // tiny normals
    case 7: return make_float(random, 127 - 70 + random.below(8));            // products go denormal
    default: return make_float(random, 127 + 20 + random.below(40));         // large, not overflowing alone
  }
}

int8_t random_int8(Random& random, IntFill fill, bool weight) {
  switch (fill) {
    case IntFill::kRandom: return static_cast<int8_t>(random.next());
    case IntFill::kExtremes: return random.coin() ? int8_t{127} : int8_t{-128};
    case IntFill::kMinimum: return -128;
    case IntFill::kMaximum: return 127;
    case IntFill::kMinTimesMax: return weight ? int8_t{127} : int8_t{-128};
  }
  return 0;
}

namespace {

rt::Status run(const firmware::CoreContext& context) {
  if (context.core != 0) return rt::Status::ok();
  const uint64_t start_ns = hal::time_ns();
  const rt::Span<const rt::FloatKernel* const> float_kernels = rt::float_kernels_for_this_cpu();
  const rt::Span<const rt::IntKernel* const> int_kernels = rt::int_kernels_for_this_cpu();
  rt::log_info("mxu-kernels: MXU tile {}, {} float kernel(s), {} int kernel(s)", rt::kMxuTile,
               float_kernels.size(), int_kernels.size());
  for (const rt::FloatKernel* kernel : float_kernels) {
    Random random(0x6d78752d666c6f61ull);  // every kernel sees the same inputs
    unsigned calls = 0, matmuls = 0;
    RT_RETURN_IF_ERROR(check_float_kernel(*kernel, random, calls));
    RT_RETURN_IF_ERROR(check_float_matmuls(*kernel, *int_kernels[0], random, matmuls));
    rt::log_info("PASS float kernel {} ({}x{}): {} kernel calls, {} f32/bf16 matmuls", kernel->name, kernel->rows,
                 kernel->columns, calls, matmuls);
  }
  for (const rt::IntKernel* kernel : int_kernels) {
    Random random(0x6d78752d696e7438ull);
    unsigned calls = 0, matmuls = 0;
    RT_RETURN_IF_ERROR(check_int_kernel(*kernel, random, calls));
    RT_RETURN_IF_ERROR(check_int_matmuls(*float_kernels[0], *kernel, random, matmuls));
    rt::log_info("PASS int kernel {} ({}x{}, k group {}, {}): {} kernel calls, {} int8 matmuls", kernel->name,
                 kernel->rows, kernel->columns, kernel->k_group,
                 kernel->layout == rt::IntLayout::kBiasedBytes ? "biased bytes" : "int16", calls, matmuls);
  }
  rt::log_info("mxu-kernels: every kernel checked in {} ms", (hal::time_ns() - start_ns) / hal::kNanosPerMilli);
  return rt::Status::ok();
}

}  // namespace
}  // namespace mxu_kernels

const firmware::App firmware::kApp = {"mxu-kernels",
                                      "every MXU micro-kernel of this CPU, bit for bit against naive loops",
                                      mxu_kernels::run};
