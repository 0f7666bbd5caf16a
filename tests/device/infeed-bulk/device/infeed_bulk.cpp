// infeed-bulk: bulk data through an InfeedQueue and back out, unchanged, to prove the host link carries
// it bit for bit (run it with `tpu run --infeed 0=x.npy --outfeed-dir D infeed-bulk`;
// tests/infeed_bulk_check.py does, with a 64 MiB dataset by default).
//   - the host's file: x float32 [S, 8, 32768]: S steps (tuples), each tuple one full x [8, 32768]
//     (1 MiB);
//   - the board: an InfeedQueue of one float32 [8, 32768] element sharded N ways along dimension 0,
//     N = the core count (8 % N must be 0), one replica per core, 4 tuples buffered (4 MiB of core 0's
//     arena); the program asks the host for S (host function infeed_steps) and runs S replicate
//     steps; in step s replica r dequeues its shard, x rows [r * 8/N, (r + 1) * 8/N), and outfeeds it
//     unchanged on queue 0 as a 1-tuple, so the host saves c<r>_q0_t<s>_e0.npy, which the test
//     compares with x[s, r * 8/N : (r + 1) * 8/N] bit for bit.
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;

constexpr uint16_t kInfeedQueue = 0;
constexpr uint16_t kOutfeedQueue = 0;
constexpr int64_t kRows = 8;
constexpr int64_t kColumns = 32768;
constexpr unsigned kSlots = 4;  // 4 MiB of buffered tuples
constexpr uint64_t kTimeoutNs = 60000ull * 1000000ull;
// Per dequeue: a 1 MiB tuple over the UART link takes minutes when QEMU runs many cores on few host CPUs.
constexpr uint64_t kDequeueTimeoutNs = 10 * kTimeoutNs;

InfeedDequeue infeed;  // the queue's data path; replicate dequeues each replica's shard through it

// The replica's shard goes back to the host as it came.
Status step(const Tensor& x) { return rt::tpu::outfeed_enqueue_tuple(kOutfeedQueue, {x}, kTimeoutNs); }

Result<InfeedQueue> make_queue(unsigned shards) {
  const DType types[] = {DType::kF32};
  const int64_t dims[] = {kRows, kColumns};
  const Shape shapes[] = {RT_TRY(Shape::make(dims))};
  InfeedQueue queue = RT_TRY(InfeedQueue::create({.tuple_types = types, .tuple_shapes = shapes}));
  RT_RETURN_IF_ERROR(queue.set_number_of_shards(static_cast<int>(shards)));
  return queue;
}

Status run_steps(unsigned cores, int64_t steps) {
  ReplicateOptions options;
  options.infeed_queue = &infeed.binding();
  const ReplicaArgs no_inputs[kMaxReplicas] = {};  // the one argument comes from the infeed queue
  for (int64_t s = 0; s < steps; ++s) {
    PodMemoryScope step_memory(cores);
    RT_TRY(replicate(step, Span<const ReplicaArgs>(no_inputs, cores), options));
  }
  return Status::ok();
}

Status program(unsigned cores) {
  if (kRows % cores != 0)
    return invalid_argument(
        "the infeed-bulk app shards 8 rows over the cores: run it on 1, 2, 4 or 8 cores, not {}", cores);
  const int64_t steps = RT_TRY(rt::tpu::infeed_steps(kInfeedQueue, kTimeoutNs));
  InfeedQueue queue = RT_TRY(make_queue(cores));
  PodMemoryScope memory(cores);
  RT_RETURN_IF_ERROR(
      infeed.open(queue, hbm(), {.link_queue = kInfeedQueue, .slots = kSlots, .timeout_ns = kDequeueTimeoutNs}));
  const Status ran = run_steps(cores, steps);
  infeed.close();
  RT_RETURN_IF_ERROR(ran);
  log_info("infeed-bulk: {} replicas each dequeued {} tuples of float32[{}, {}] sharded {} ways", cores, steps, kRows,
           kColumns, cores);
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return program(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {
    "infeed-bulk", "1 MiB infeed tuples outfed back unchanged, bit for bit (run with tpu run --infeed)",
    run};
