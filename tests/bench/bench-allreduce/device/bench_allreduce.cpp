// bench-allreduce: f32 sum all-reduce from 4 KiB to 64 MiB (4 MiB on QEMU boards), against the
// concurrent-copy bound measured in the same run, on the same buffers, interleaved with it.
//
// The bound: every core copies N bytes (its own input to its own output) at the same time. That
// is exactly the traffic an optimal shared-memory all-reduce must generate per core: the members'
// inputs (n x N bytes) must all be read and their outputs (n x N bytes) all written, and spread
// evenly over n cores that is N bytes read + N bytes written per core, whatever n (the algorithm
// here: core k reduces elements [kN/n, (k+1)N/n) reading all n inputs, and writes them to all n
// outputs). The copy is timed three ways: the C library's memcpy, a plain vector loop (the
// reduction kernel's loads and stores without the adds) and, where the target has them, the same
// loop with non-temporal stores (which the all-reduce uses from kStreamingMinBytes); the bound is
// the fastest of their medians, so neither a slow memcpy strategy for some size nor a slow loop
// inflates the ratio.
// ratio = bound time / our time per call; 1.0 means the all-reduce costs no more than moving the
// bytes it must move (it also synchronises the cores twice per call, which the copies do not).
//
// Measurement, per size, identical for every contender: warm-up batches doubling from one call
// until a batch lasts kWarmupSeconds; then kSamples rounds of one batch of each contender
// (ours, memcpy, copy loop, streaming copy loop, ours, ...), each batch one untimed call (the
// previous batch was another contender's, with other cache contents) and then calls for about
// kSampleSeconds (at least one) timed between two barriers (so it is the slowest core's time).
// Short batches, many of them, and medians: a batch the OS preempted (other processes share these
// cores) is an outlier, not the result. Lines (core 0):
//   BENCH {"bench":"allreduce_f32/<board>/<n>cores/<size>KiB","metric":"algbw"|"busbw",
//          "value":median GB/s,"min":..,"max":..,"unit":"GB/s","baseline":"concurrent copy bound",
//          "ratio":value / bound,"baseline_value":bound GB/s,"samples":k}
//   SAMPLES {"bench":...,"contender":"ours"|"memcpy"|"copy_loop"|"streaming_copy_loop","ps":[picoseconds
//            per call of each batch]}
// busbw is NCCL's: algbw x 2(n-1)/n (the bound's busbw likewise). tests/bench/benchmarks.py pools the
// SAMPLES of several runs, interleaved with Open MPI's MPI_Allreduce runs, for its figures.
//
// On the host board (cores are threads) each core pins itself to its own CPU when there are
// enough, as mpirun binds the MPI ranks this is compared with: otherwise the OS may put both
// threads on one CPU (the load balancer evens out per-CPU load across processes, and two busy
// threads of one process next to a busy process elsewhere look balanced), and every message
// then waits for a context switch. Boards run one core per CPU anyway.
#include <string.h>

#include "firmware/app.hpp"
#include "firmware/bench.hpp"
#include "hal/board.hpp"
#include "hal/core.hpp"
#include "hal/affinity.hpp"
#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace {

// The copy loops: 4 x 32-byte vectors per step (16 bytes off AVX), unaligned, as the reduction
// kernel; the streaming one with non-temporal stores (the buffers here are page-aligned).
#if defined(__AVX__)
constexpr size_t kVectorBytes = 32;
constexpr bool kCanStream = true;
#else
constexpr size_t kVectorBytes = 16;
constexpr bool kCanStream = false;
#endif
typedef uint8_t Vector __attribute__((vector_size(kVectorBytes)));

void copy_loop(uint8_t* out, const uint8_t* in, size_t bytes) {
  constexpr size_t kStep = 4 * kVectorBytes;
  size_t i = 0;
  for (; i + kStep <= bytes; i += kStep) {
    Vector v0, v1, v2, v3;
    __builtin_memcpy(&v0, in + i, kVectorBytes);
    __builtin_memcpy(&v1, in + i + kVectorBytes, kVectorBytes);
    __builtin_memcpy(&v2, in + i + 2 * kVectorBytes, kVectorBytes);
    __builtin_memcpy(&v3, in + i + 3 * kVectorBytes, kVectorBytes);
    __builtin_memcpy(out + i, &v0, kVectorBytes);
    __builtin_memcpy(out + i + kVectorBytes, &v1, kVectorBytes);
    __builtin_memcpy(out + i + 2 * kVectorBytes, &v2, kVectorBytes);
    __builtin_memcpy(out + i + 3 * kVectorBytes, &v3, kVectorBytes);
  }
  __builtin_memcpy(out + i, in + i, bytes - i);
}

void streaming_copy_loop(uint8_t* out, const uint8_t* in, size_t bytes) {
#if defined(__AVX__)
  constexpr size_t kStep = 4 * kVectorBytes;
  size_t i = 0;
  for (; i + kStep <= bytes; i += kStep) {
    const __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 32));
    const __m256i v2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 64));
    const __m256i v3 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 96));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(out + i), v0);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(out + i + 32), v1);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(out + i + 64), v2);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(out + i + 96), v3);
  }
  __builtin_memcpy(out + i, in + i, bytes - i);
  _mm_sfence();
#else
  copy_loop(out, in, bytes);
#endif
}

using rt::Status;

constexpr size_t kPoolBytes = BOARD_RAM_MB == 0 ? (size_t{512} << 20) : (size_t{32} << 20);
alignas(4096) uint8_t pool[kPoolBytes];
constexpr double kWarmupSeconds = 0.005;
constexpr double kSampleSeconds = 0.001;
constexpr unsigned kSamples = 15;
constexpr unsigned kMaxBatch = 1u << 20;

// Batches doubling from one call until one lasts kWarmupSeconds (every core agrees: core 0
// decides, its time being the slowest core's); returns the calls per sample batch.
template <class Body>
rt::Result<unsigned> warm_up(rt::Collectives& collectives, Body body) {
  uint32_t batch = 1;
  for (;;) {
    rt::Result<double> seconds = firmware::bench::timed(collectives, batch, body);
    if (!seconds) return seconds.status();
    uint32_t next = 0;  // 0: warm
    if (*seconds * batch < kWarmupSeconds && batch < kMaxBatch) next = batch * 2;
    if (next == 0) {
      const double wanted = kSampleSeconds / (*seconds > 0 ? *seconds : 1e-9);
      next = static_cast<uint32_t>(wanted < 1 ? 1 : (wanted > kMaxBatch ? kMaxBatch : wanted)) | 0x80000000u;
    }
    RT_RETURN_IF_ERROR(collectives.broadcast(0, rt::DType::kU32, &next, 1));
    if (next & 0x80000000u) return static_cast<unsigned>(next & 0x7fffffffu);
    batch = next;
  }
}

// One sample: a call to bring the caches to this contender's state (the previous batch was another
// contender's), then `batch` calls timed between barriers; picoseconds per call.
template <class Body>
Status sample(rt::Collectives& collectives, unsigned batch, Body body, uint64_t& picoseconds) {
  RT_RETURN_IF_ERROR(body());
  rt::Result<double> seconds = firmware::bench::timed(collectives, batch, body);
  if (!seconds) return seconds.status();
  picoseconds = static_cast<uint64_t>(*seconds * 1e12);
  return Status::ok();
}

// Median of a sorted list (the mean of the middle two for an even count).
double median(const uint64_t* sorted, unsigned count) {
  return count % 2 ? static_cast<double>(sorted[count / 2])
                   : 0.5 * (static_cast<double>(sorted[count / 2 - 1]) + static_cast<double>(sorted[count / 2]));
}

void report(rt::StringView name, rt::StringView metric, double value, double low, double high, double bound) {
  rt::log_info("BENCH {{\"bench\":\"{}\",\"metric\":\"{}\",\"value\":{},\"min\":{},\"max\":{},\"unit\":\"GB/s\","
               "\"baseline\":\"concurrent copy bound\",\"ratio\":{},\"baseline_value\":{},\"samples\":{}}}",
               name, metric, value, low, high, value / bound, bound, kSamples);
}

Status run(const firmware::CoreContext& context) {
  hal::pin_core_to_own_cpu(context.core, context.cores);
  rt::Collectives collectives(rt::ReplicaSet::one_per_core(context.cores), context.core);
  const size_t per_core = kPoolBytes / (2 * context.cores);
  uint8_t* in = pool + 2 * per_core * context.core;
  uint8_t* out = in + per_core;
  for (size_t i = 0; i < per_core / 4; ++i) {
    const float value = static_cast<float>((i + context.core) % 1000) * 0.5f;
    memcpy(in + 4 * i, &value, 4);
  }
  memset(out, 0, per_core);  // fault the output pages in before anything is timed
  const double bus_factor = context.cores > 1 ? 2.0 * (context.cores - 1) / context.cores : 1.0;
  for (size_t bytes = 4096; bytes <= (size_t{64} << 20) && bytes <= per_core; bytes *= 4) {
    const auto copy = [&] { memcpy(out, in, bytes); return Status::ok(); };
    const auto loop = [&] { copy_loop(out, in, bytes); return Status::ok(); };
    const auto streaming = [&] { streaming_copy_loop(out, in, bytes); return Status::ok(); };
    const auto reduce = [&] { return collectives.all_reduce(rt::ReduceOp::kSum, rt::DType::kF32, in, out, bytes / 4); };
    rt::Result<unsigned> reduce_batch = warm_up(collectives, reduce);
    if (!reduce_batch) return reduce_batch.status();
    rt::Result<unsigned> copy_batch = warm_up(collectives, copy);
    if (!copy_batch) return copy_batch.status();
    rt::Result<unsigned> loop_batch = warm_up(collectives, loop);
    if (!loop_batch) return loop_batch.status();
    rt::Result<unsigned> streaming_batch = kCanStream ? warm_up(collectives, streaming) : rt::Result<unsigned>(0u);
    if (!streaming_batch) return streaming_batch.status();
    uint64_t ours[kSamples];
    uint64_t bound[kSamples];
    uint64_t looped[kSamples];
    uint64_t streamed[kSamples];
    for (unsigned s = 0; s < kSamples; ++s) {
      RT_RETURN_IF_ERROR(sample(collectives, *reduce_batch, reduce, ours[s]));
      RT_RETURN_IF_ERROR(sample(collectives, *copy_batch, copy, bound[s]));
      RT_RETURN_IF_ERROR(sample(collectives, *loop_batch, loop, looped[s]));
      if (kCanStream) RT_RETURN_IF_ERROR(sample(collectives, *streaming_batch, streaming, streamed[s]));
    }
    if (context.core != 0) continue;
    rt::FixedString<96> name;
    rt::format_to(name, "allreduce_f32/{}/{}cores/{}KiB", hal::board::name(), context.cores, bytes / 1024);
    firmware::bench::print_samples(name.view(), "ours", ours, kSamples);
    firmware::bench::print_samples(name.view(), "memcpy", bound, kSamples);
    firmware::bench::print_samples(name.view(), "copy_loop", looped, kSamples);
    if (kCanStream) firmware::bench::print_samples(name.view(), "streaming_copy_loop", streamed, kSamples);
    firmware::bench::sort_samples(ours, kSamples);
    firmware::bench::sort_samples(bound, kSamples);
    firmware::bench::sort_samples(looped, kSamples);
    firmware::bench::sort_samples(streamed, kSamples);
    const auto gbps = [&](double picoseconds) { return static_cast<double>(bytes) / picoseconds * 1e3; };
    const double algbw = gbps(median(ours, kSamples));
    double best = median(bound, kSamples) < median(looped, kSamples) ? median(bound, kSamples) : median(looped, kSamples);
    if (kCanStream && median(streamed, kSamples) < best) best = median(streamed, kSamples);
    const double bound_algbw = gbps(best);
    const double slowest = gbps(static_cast<double>(ours[kSamples - 1]));
    const double fastest = gbps(static_cast<double>(ours[0]));
    report(name.view(), "algbw", algbw, slowest, fastest, bound_algbw);
    report(name.view(), "busbw", algbw * bus_factor, slowest * bus_factor, fastest * bus_factor, bound_algbw * bus_factor);
  }
  return Status::ok();
}

}  // namespace

const firmware::App firmware::kApp = {"bench-allreduce", "all-reduce bandwidth against the concurrent-copy bound", run};
