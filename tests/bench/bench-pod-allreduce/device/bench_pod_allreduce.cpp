// bench-pod-allreduce: cross_replica_sum of float32 across the boards of a pod (tpu run --boards K),
// of one float (the latency) and from 4 KiB to 64 MiB, timed on the board: per size, one untimed call, then
// calls until about kSampleSeconds passed (at least kMinCalls), each call's time taken between two
// reads of the board's clock on replica 0, and their median reported by core 0 of task 0:
//   POD-ALLREDUCE {"bytes":N,"seconds":median per call,"min":..,"max":..,"calls":k,"boards":K,"replicas":R}
// Every call's result is checked (the sum of every replica's id + 1, exact in float32), so a fast
// wrong answer cannot pass. tests/bench/pod_allreduce.py compares it with MPI_Allreduce between as
// many processes on the same machine.
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;

constexpr size_t kSizes[] = {4, 4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
constexpr double kSampleSeconds = 1.0;
constexpr unsigned kMinCalls = 5;
constexpr unsigned kMaxCalls = 64;

Status check(const Tensor& sum, float expected, size_t bytes) {
  const size_t n = sum.num_elements();
  for (size_t i = 0; i < n; i += n / 7 + 1)
    if (sum.at<float>(i) != expected)
      return internal_error("{} bytes: element {} is {}, expected {}", bytes, i, sum.at<float>(i), expected);
  return Status::ok();
}

void sort(uint64_t* values, unsigned count) {
  for (unsigned i = 1; i < count; ++i)
    for (unsigned j = i; j > 0 && values[j] < values[j - 1]; --j) {
      const uint64_t swap = values[j];
      values[j] = values[j - 1];
      values[j - 1] = swap;
    }
}

Result<Tensor> bench(ReplicaContext& replica) {
  const unsigned replicas = replica.num_replicas();
  const float expected = static_cast<float>(replicas * (replicas + 1) / 2);
  for (const size_t bytes : kSizes) {
    ArenaScope scope(replica.arena());
    const int64_t elements = static_cast<int64_t>(bytes / sizeof(float));
    const Shape shape = RT_TRY(Shape::make(Span<const int64_t>(&elements, 1)));
    const Tensor x = RT_TRY(replica.arena().allocate_tensor(DType::kF32, shape, "x"));
    for (int64_t i = 0; i < elements; ++i) x.at<float>(i) = static_cast<float>(replica.replica_id() + 1);
    RT_RETURN_IF_ERROR(check(RT_TRY(replica.cross_replica_sum(x)), expected, bytes));  // untimed
    uint64_t times[kMaxCalls];
    unsigned calls = 0;
    const uint64_t start = hal::time_ns();
    do {
      ArenaScope call(replica.arena());
      const uint64_t before = hal::time_ns();
      const Tensor sum = RT_TRY(replica.cross_replica_sum(x));
      times[calls++] = hal::time_ns() - before;
      RT_RETURN_IF_ERROR(check(sum, expected, bytes));
      // Every replica runs the same number of calls: the decision is replica 0's, broadcast.
      const Tensor more = RT_TRY(scalar(replica.arena(), int32_t(calls < kMinCalls || (hal::time_ns() - start) <
                                                                                         uint64_t(kSampleSeconds * 1e9)),
                                        "more"));
      const Tensor agreed = RT_TRY(replica.broadcast(more, 0));
      if (agreed.scalar<int32_t>() == 0 || calls == kMaxCalls) break;
    } while (true);
    if (replica.replica_id() == 0) {
      sort(times, calls);
      log_info("POD-ALLREDUCE {{\"bytes\":{},\"seconds\":{},\"min\":{},\"max\":{},\"calls\":{},\"boards\":{},\"replicas\":{}}}",
               bytes, double(times[calls / 2]) * 1e-9, double(times[0]) * 1e-9, double(times[calls - 1]) * 1e-9, calls,
               pod_membership().num_tasks, replicas);
    }
  }
  return scalar(replica.arena(), 0.0f, "done");
}

Status program(unsigned cores) {
  PodMemoryScope memory(cores);
  const unsigned replicas = cores * pod_membership().num_tasks;
  ReplicaArgs inputs[kMaxReplicas];
  ReplicateOptions options;
  options.collective_timeout_ns = 120000ull * 1000000;
  options.timeout_ns = 600000ull * 1000000;
  RT_TRY(replicate(bench, Span<const ReplicaArgs>(inputs, replicas), options));
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return program(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {"bench-pod-allreduce",
                                      "cross_replica_sum across the boards of a pod, 4 bytes and 4 KiB to 16 MiB", run};
