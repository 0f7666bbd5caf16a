// infeed-columns: an InfeedQueue whose first element is sharded along its columns (dimension 1), run
// by tests/infeed_check.py --app infeed-columns on one board and on pods of boards:
//   - the host's files: x float32 [S, 4, 8] and labels int32 [S, 8];
//   - the board: an InfeedQueue of (float32 [4, 8], int32 [8]) sharded N ways, x along dimension 1
//     and the labels along dimension 0, N = every replica of the pod (8 % N must be 0); in step s
//     replica r dequeues x columns [r * 8/N, (r + 1) * 8/N) and the same labels and outfeeds both
//     on queue 0 as it got them, which the checker compares with NumPy's slices of the files.
// In a pod each board's tpu streams only its board's block of x's columns (TPU per-host input, cut
// where the board's credits say), so a board's slot holds x [4, 8/K], strided in the file.
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;

constexpr uint16_t kInfeedQueue = 0;
constexpr uint16_t kOutfeedQueue = 0;
constexpr int64_t kRows = 4;
constexpr int64_t kColumns = 8;
constexpr uint64_t kTimeoutNs = 60000ull * 1000000ull;

InfeedDequeue infeed;

// One step of one replica: the shards it dequeued go straight back out.
Result<Tensor> step(ReplicaContext&, const Tensor& x_columns, const Tensor& labels) {
  const Tensor shards[] = {x_columns, labels};
  RT_RETURN_IF_ERROR(outfeed_enqueue_tuple(kOutfeedQueue, shards, kTimeoutNs));
  return x_columns;
}

// (float32 [4, 8] along its columns, int32 [8] along its only dimension), N shards each.
Result<InfeedQueue> column_queue(unsigned shards) {
  const int64_t x_dims[] = {kRows, kColumns}, label_dims[] = {kColumns};
  const DType types[] = {DType::kF32, DType::kI32};
  const Shape shapes[] = {RT_TRY(Shape::make(x_dims)), RT_TRY(Shape::make(label_dims))};
  const int dimensions[] = {1, 0};
  InfeedQueue queue = RT_TRY(InfeedQueue::create({.tuple_types = types, .tuple_shapes = shapes}));
  RT_RETURN_IF_ERROR(queue.set_number_of_shards(static_cast<int>(shards)));
  RT_RETURN_IF_ERROR(queue.set_shard_dimensions(dimensions));
  return queue;
}

Status program(unsigned cores) {
  const unsigned replicas = cores * pod_membership().num_tasks;
  if (kColumns % replicas != 0)
    return invalid_argument("infeed-columns shards 8 columns over the replicas: run it on 1, 2, 4 or 8 in all, not {}",
                            replicas);
  const int64_t steps = RT_TRY(infeed_steps(kInfeedQueue, kTimeoutNs));
  InfeedQueue queue = RT_TRY(column_queue(replicas));
  PodMemoryScope memory(cores);
  RT_RETURN_IF_ERROR(infeed.open(queue, hbm(), {.link_queue = kInfeedQueue, .slots = 4, .timeout_ns = kTimeoutNs}));
  ReplicateOptions options;
  options.infeed_queue = &infeed.binding();
  const ReplicaArgs no_inputs[kMaxReplicas] = {};
  Status ran = Status::ok();
  for (int64_t s = 0; s < steps && ran.is_ok(); ++s) {
    PodMemoryScope step_memory(cores);
    ran = replicate(step, Span<const ReplicaArgs>(no_inputs, replicas), options).status();
  }
  infeed.close();
  RT_RETURN_IF_ERROR(ran);
  log_info("infeed-columns: {} replicas each dequeued {} tuples, x float32[{}, {}] sharded along its columns", replicas,
           steps, kRows, kColumns);
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return program(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {
    "infeed-columns", "an infeed queue sharded along columns, on one board and in a pod (tests/infeed_check.py)", run};
