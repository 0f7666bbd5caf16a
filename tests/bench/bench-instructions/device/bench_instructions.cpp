// bench-instructions: guest instructions per reduced f32 element of an all-reduce, under QEMU with
// -icount shift=0. There QEMU's instruction counters (PMU INST_RETIRED, instret) read the global
// instruction count of the whole emulated machine, so core 0 measures what ALL cores executed
// between two barriers around one all_reduce, minus what a barrier alone costs.
//   value    = that total / (elements x cores): what one core spends per element of its result
//   baseline = core 0 alone reducing the same number of local buffers with the same kernels while
//              the other cores sleep (the arithmetic without any communication), per element
//   ratio    = value / baseline
#include "firmware/app.hpp"
#include "firmware/bench.hpp"
#include "hal/board.hpp"

namespace {

using rt::Status;

constexpr size_t kMaxElements = 64 * 1024;
struct alignas(64) CoreBuffers {
  float in[kMaxElements];
  float out[kMaxElements];
};
CoreBuffers buffers[hal::kMaxCores];
alignas(64) uint8_t accumulator[kMaxElements * 4];

uint64_t local_reduction_instructions(unsigned cores, size_t count) {
  const uint64_t start = hal::instruction_count();
  rt::reduce_init(rt::DType::kF32, reinterpret_cast<const uint8_t*>(buffers[0].in), accumulator, 0, count);
  for (unsigned c = 1; c < cores; ++c)
    rt::reduce_combine(rt::ReduceOp::kSum, rt::DType::kF32, reinterpret_cast<const uint8_t*>(buffers[c].in),
                       accumulator, 0, count);
  rt::reduce_finish(rt::ReduceOp::kSum, rt::DType::kF32, accumulator, reinterpret_cast<uint8_t*>(buffers[0].out),
                    count, cores);
  return hal::instruction_count() - start;
}

// Instructions the whole machine executes for `body` followed by a barrier (read on core 0).
template <class Body>
rt::Result<uint64_t> machine_instructions(rt::Collectives& collectives, unsigned core, Body body) {
  RT_RETURN_IF_ERROR(collectives.barrier());
  const uint64_t start = core == 0 ? hal::instruction_count() : 0;
  RT_RETURN_IF_ERROR(body());
  RT_RETURN_IF_ERROR(collectives.barrier());
  return core == 0 ? hal::instruction_count() - start : 0;
}

Status run(const firmware::CoreContext& context) {
  rt::Collectives collectives(rt::ReplicaSet::one_per_core(context.cores), context.core);
  CoreBuffers& mine = buffers[context.core];
  for (size_t i = 0; i < kMaxElements; ++i) mine.in[i] = static_cast<float>((i * 7 + context.core) % 100);
  if (hal::instruction_count() == 0)
    return rt::Status::error(rt::StatusCode::kUnimplemented, "no instruction counter here: run under QEMU -icount");
  for (size_t count : {size_t{1024}, size_t{64 * 1024}}) {
    const auto reduce = [&] { return collectives.all_reduce(rt::ReduceOp::kSum, rt::DType::kF32, mine.in, mine.out, count); };
    RT_RETURN_IF_ERROR(reduce());  // warm-up
    rt::Result<uint64_t> collective = machine_instructions(collectives, context.core, reduce);
    if (!collective) return collective.status();
    rt::Result<uint64_t> barrier_only = machine_instructions(collectives, context.core, [] { return Status::ok(); });
    if (!barrier_only) return barrier_only.status();
    uint64_t local = 0;
    if (context.core == 0) {
      hal::delay_ns(2 * hal::kNanosPerMilli);  // the others are asleep in the barrier below by now
      local = local_reduction_instructions(context.cores, count);
    }
    RT_RETURN_IF_ERROR(collectives.barrier());
    if (context.core != 0) continue;
    const double per_element = static_cast<double>(*collective - *barrier_only) / static_cast<double>(count * context.cores);
    const double baseline = static_cast<double>(local) / static_cast<double>(count);
    rt::FixedString<96> name;
    rt::format_to(name, "allreduce_f32_instructions/{}/{}cores/{}KiB", hal::board::name(), context.cores, count * 4 / 1024);
    firmware::bench::report(name.view(), "instructions_per_element", per_element, "instructions/element/core",
                            "local reduction on one core", per_element / baseline);
  }
  return Status::ok();
}

}  // namespace

const firmware::App firmware::kApp = {"bench-instructions", "instructions per reduced element (QEMU -icount)", run};
