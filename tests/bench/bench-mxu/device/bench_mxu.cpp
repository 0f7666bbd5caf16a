// bench-mxu: guest instructions per multiply-accumulate of a 256 x 256 x 256 matmul on one core's
// MXU, under QEMU with -icount shift=0 (deterministic; run with CORES=1, since QEMU's instruction
// counter counts the whole machine under icount). For float32 and bfloat16 the baseline is the
// portable kernel (plain fma loops) on the same shape; for int8 it is the float32 figure.
//   value = instructions / (M x K x N), ratio = value / baseline
#include "firmware/app.hpp"
#include "firmware/bench.hpp"
#include "hal/board.hpp"
#include "runtime/mxu/core_mxu.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/mxu/board_tile.hpp"

namespace {

using rt::DType;
using rt::Status;

constexpr int64_t kSize = 256;
rt::Mxu portable_unit(rt::kMxuTile, rt::kPortableFloatKernel);

rt::Result<rt::Tensor> filled_matrix(DType dtype, uint32_t seed) {
  const int64_t dims[] = {kSize, kSize};
  rt::Result<rt::Tensor> t =
      rt::hbm().allocate_tensor(dtype, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), "bench-mxu operand");
  if (!t) return t;
  for (size_t i = 0; i < t->num_elements() * t->element_size(); ++i)
    t->data[i] = static_cast<uint8_t>((i * 2654435761u + seed) >> 13) & 0x3f;  // small finite values
  return t;
}

rt::Result<double> instructions_per_mac(rt::Mxu& unit, DType dtype) {
  rt::Result<rt::Tensor> a = filled_matrix(dtype, 1), b = filled_matrix(dtype, 2);
  rt::Result<rt::Tensor> c = filled_matrix(dtype == DType::kI8 ? DType::kI32 : DType::kF32, 3);
  if (!a) return a.status();
  if (!b) return b.status();
  if (!c) return c.status();
  RT_RETURN_IF_ERROR(rt::matmul(unit, *a, *b, *c));  // warm-up (page tables, caches)
  const uint64_t start = hal::instruction_count();
  RT_RETURN_IF_ERROR(rt::matmul(unit, *a, *b, *c));
  const uint64_t used = hal::instruction_count() - start;
  return static_cast<double>(used) / static_cast<double>(kSize * kSize * kSize);
}

Status report(const char* type, double value, const char* baseline, double baseline_value) {
  rt::FixedString<96> name;
  rt::format_to(name, "mxu_{}_instructions/{}/{}", type, hal::board::name(), kSize);
  firmware::bench::report(name.view(), "instructions_per_mac", value, "instructions/MAC", baseline, value / baseline_value);
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  if (context.core != 0) return Status::ok();
  if (context.cores != 1)
    return rt::invalid_argument("bench-mxu counts the whole machine's instructions: run it with CORES=1");
  if (hal::instruction_count() == 0)
    return Status::error(rt::StatusCode::kUnimplemented, "no instruction counter here: run under QEMU -icount");
  rt::Mxu& unit = rt::core_mxu();
  rt::log_info("MXU tile {}, float kernel {}", unit.tile(), unit.float_kernel().name);
  double f32 = 0;
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    rt::Result<double> fast = instructions_per_mac(unit, dtype);
    rt::Result<double> portable = instructions_per_mac(portable_unit, dtype);
    if (!fast) return fast.status();
    if (!portable) return portable.status();
    if (dtype == DType::kF32) f32 = *fast;
    RT_RETURN_IF_ERROR(report(rt::dtype_name(dtype), *fast, "portable-4x4 kernel, same shape", *portable));
    rt::hbm().reset();
  }
  rt::Result<double> int8 = instructions_per_mac(unit, DType::kI8);
  if (!int8) return int8.status();
  return report("int8", *int8, "float32 MXU, same shape", f32);
}

}  // namespace

const firmware::App firmware::kApp = {"bench-mxu", "guest instructions per MAC of a 256^3 matmul (QEMU -icount, 1 core)",
                                      run};
