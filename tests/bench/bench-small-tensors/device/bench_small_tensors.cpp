// bench-small-tensors: what a training step's small tensors cost between two cores, against what
// they must cost. A data-parallel step of the digits MLP sums its gradients and metrics over the
// replicas in one all_reduce of 9612 float32 (38,448 bytes: 9610 weights, a loss and a count), and a
// scalar (4 bytes) is the smallest such sum. An all_reduce of two cores cannot beat one mailbox round
// trip (each core must learn that the other's input is ready and that its own was read) plus a copy
// of the bytes (each core reads one half of both inputs and writes both outputs' halves: N bytes in,
// N out), so the baseline is the sum of those two, both measured here in the same run:
//   all_reduce: collectives.all_reduce(sum, float32) of N bytes on cores 0 and 1 at once
//   round_trip: an 8-byte mailbox message 0 -> 1 -> 0 (bench-mailbox's contender)
//   copy:       memcpy of N bytes on both cores at once (each its own buffers)
// kRounds rounds, each one timed batch of every contender at every size in turn (interleaved: a
// batch the OS preempted is an outlier in one contender, not a bias), printed as SAMPLES lines
// (picoseconds per operation); tests/bench/benchmarks.py pools them over runs and prints
//   {"bench": "small_tensors/host/2cores/38448B", "metric": "latency", "value": all_reduce median,
//    "baseline": "mailbox round trip + memcpy of the same bytes", "baseline_value": round_trip + copy,
//    "ratio": value / baseline}
// On the host board each core pins itself to a CPU of its own (hal/affinity.hpp).
#include "firmware/app.hpp"
#include "firmware/bench.hpp"
#include "hal/affinity.hpp"
#include "hal/board.hpp"

namespace {

using rt::Status;

constexpr size_t kSizes[] = {4, 38448};  // a scalar; the MLP's gradients and metrics
constexpr size_t kMaxBytes = 38448;
constexpr unsigned kRounds = 41;
constexpr unsigned kOperations = 200;  // per timed batch

alignas(64) float inputs[2][kMaxBytes / 4];
alignas(64) float outputs[2][kMaxBytes / 4];
alignas(64) uint8_t copy_from[2][kMaxBytes];
alignas(64) uint8_t copy_to[2][kMaxBytes];

struct Contender {
  const char* name;
  uint64_t samples[kRounds];
};

// One size's three contenders, timed `kRounds` times each, interleaved.
Status measure(rt::Collectives& collectives, unsigned core, size_t bytes, Contender (&contenders)[3]) {
  const size_t count = bytes / 4;
  for (size_t i = 0; i < count; ++i) inputs[core][i] = static_cast<float>(core + 1) * 0.5f + static_cast<float>(i % 7);
  const auto sample = [&](rt::Result<double> seconds, uint64_t& out) {
    if (seconds && core == 0) out = static_cast<uint64_t>(*seconds * 1e12);  // core 0 keeps the samples
    return seconds.status();
  };
  const auto all_reduce = [&] {
    return collectives.all_reduce(rt::ReduceOp::kSum, rt::DType::kF32, inputs[core], outputs[core], count);
  };
  const auto round_trip = [&] { return firmware::bench::mailbox_round_trip(core); };
  const auto copy = [&] {
    memcpy(copy_to[core], copy_from[core], bytes);
    asm volatile("" : : "r"(copy_to[core]) : "memory");  // the copy is not optimised away
    return Status::ok();
  };
  for (unsigned r = 0; r <= kRounds; ++r) {  // round 0 warms up and is not kept
    const unsigned k = r == 0 ? 0 : r - 1;
    RT_RETURN_IF_ERROR(sample(firmware::bench::timed(collectives, kOperations, all_reduce), contenders[0].samples[k]));
    RT_RETURN_IF_ERROR(sample(firmware::bench::timed(collectives, kOperations, round_trip), contenders[1].samples[k]));
    RT_RETURN_IF_ERROR(sample(firmware::bench::timed(collectives, kOperations, copy), contenders[2].samples[k]));
  }
  for (size_t i = 0; i < count; ++i) {  // the sum is right (small integers and halves: exact in float32)
    const float expected = 1.5f + 2.0f * static_cast<float>(i % 7);
    if (outputs[core][i] != expected)
      return rt::internal_error("bench-small-tensors: element {} of the sum is {}, expected {}", i, outputs[core][i],
                                expected);
  }
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  if (context.cores != 2) return rt::invalid_argument("bench-small-tensors runs on exactly 2 cores, not {}", context.cores);
  hal::pin_core_to_own_cpu(context.core, context.cores);
  rt::Collectives collectives(rt::ReplicaSet::one_per_core(context.cores), context.core);
  for (const size_t bytes : kSizes) {
    static Contender contenders[3] = {{"all_reduce", {}}, {"round_trip", {}}, {"copy", {}}};
    RT_RETURN_IF_ERROR(measure(collectives, context.core, bytes, contenders));
    if (context.core != 0) continue;
    rt::FixedString<96> name;
    rt::format_to(name, "small_tensors/{}/2cores/{}B", hal::board::name(), bytes);
    for (const Contender& contender : contenders)
      firmware::bench::print_samples(name.view(), contender.name, contender.samples, kRounds);
  }
  return Status::ok();
}

}  // namespace

const firmware::App firmware::kApp = {"bench-small-tensors",
                                      "small tensors between two cores: all_reduce against a round trip and a copy", run};
