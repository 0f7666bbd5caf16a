// bench-infeed: the host -> board infeed path alone, for `make bench` (tests/bench/link_throughput.py):
// `tpu run --cores 1 --infeed 0=x.npy bench-infeed` streams x float32 [S, 1024, 1024] as S tuples of
// 4 MiB; the one replica dequeues each in place (a view of the slot tpu wrote it into: no byte is
// copied on the board) and checks its first and last element against the value the benchmark
// filled the file with (kFill), so what is timed is the link: tpu reading the file straight into
// the board's slots, and the frames and credits around each tuple. tpu's infeed rate line is the
// figure; the board prints how long its dequeues took.
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;

constexpr int64_t kRows = 1024, kColumns = 1024;
constexpr float kFill = 1.5f;  // link_throughput.py writes every element so
constexpr uint64_t kTimeoutNs = 600000ull * 1000000ull;

InfeedDequeue infeed;

Result<InfeedQueue> make_queue() {
  const DType types[] = {DType::kF32};
  const int64_t dims[] = {kRows, kColumns};
  const Shape shapes[] = {RT_TRY(Shape::make(dims))};
  return InfeedQueue::create({.tuple_types = types, .tuple_shapes = shapes});
}

Status dequeue_all(int64_t steps) {
  const uint64_t start = hal::time_ns();
  for (int64_t s = 0; s < steps; ++s) {
    Tensor x;
    RT_RETURN_IF_ERROR(infeed.dequeue(0, &x, hbm()));
    const Span<const float> values = x.values<float>();
    if (values[0] != kFill || values[values.size() - 1] != kFill)
      return internal_error("bench-infeed: tuple {} holds {} and {} at its ends, not {}", s, values[0],
                            values[values.size() - 1], kFill);
  }
  const uint64_t elapsed = hal::time_ns() - start;
  log_info("bench-infeed: {} tuples of float32[{}, {}] dequeued in place in {} us", steps, kRows, kColumns,
           elapsed / 1000);
  return Status::ok();
}

Status program() {
  const int64_t steps = RT_TRY(infeed_steps(0, kTimeoutNs));
  InfeedQueue queue = RT_TRY(make_queue());
  RT_RETURN_IF_ERROR(infeed.open(queue, hbm(), {.link_queue = 0, .timeout_ns = kTimeoutNs, .in_place = true}));
  const Status done = dequeue_all(steps);
  infeed.close();
  return done;
}

Status run(const firmware::CoreContext& context) {
  if (context.core != 0) return Status::ok();
  return program();
}

}  // namespace

const firmware::App firmware::kApp = {"bench-infeed", "4 MiB infeed tuples from a .npy, dequeued in place (make bench)",
                                      run};
