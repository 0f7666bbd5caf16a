// infeed: a dataset streamed by the host through an InfeedQueue into every replica (run it with
// `tpu run --infeed 0=x.npy,labels.npy --outfeed-dir D infeed`; tests/infeed_check.py does).
//   - the host's files: x float32 [S, 8, 3] and labels int32 [S, 8]: S steps (tuples), each tuple a
//     full x [8, 3] and labels [8];
//   - the board: an InfeedQueue of (float32 [8, 3], int32 [8]) sharded N ways along dimension 0,
//     N = the core count (8 % N must be 0), one replica per core; the program asks the host for
//     S (host function infeed_steps) and runs S replicate steps; in step s replica r dequeues its
//     shard, x rows [r * 8/N, (r + 1) * 8/N) and the same labels, and outfeeds on queue 0
//       (its x shard, the column sums of the shard in float32 (reduce_sum over axis 0: rows added in
//        ascending order), the int32 sum of its labels (reduce_sum, wrapping))
//     so the host saves c<r>_q0_t<s>_e{0,1,2}.npy, which the test checks against NumPy.
// Also: the queue's TF checks (a second dequeue op from the same queue) hold on the board.
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;

constexpr uint16_t kInfeedQueue = 0;
constexpr uint16_t kOutfeedQueue = 0;
constexpr int64_t kRows = 8;
constexpr int64_t kColumns = 3;
constexpr uint64_t kTimeoutNs = 60000ull * 1000000ull;

InfeedDequeue infeed;  // the queue's data path; replicate dequeues each replica's shard through it

// One step of one replica: its shard of the tuple in, (x, column sums, label sum) outfed.
Result<Tensor> step(ReplicaContext& replica, const Tensor& x, const Tensor& labels) {
  const Tensor column_sums = RT_TRY(rt::reduce_sum(replica.arena(), x, {0}));
  const Tensor label_sum = RT_TRY(rt::reduce_sum(replica.arena(), labels));
  const Tensor tuple[] = {x, column_sums, label_sum};
  RT_RETURN_IF_ERROR(outfeed_enqueue_tuple(kOutfeedQueue, tuple, kTimeoutNs));
  return column_sums;
}

Result<InfeedQueue> make_queue(unsigned shards) {
  const DType types[] = {DType::kF32, DType::kI32};
  const int64_t x_dims[] = {kRows, kColumns};
  const int64_t label_dims[] = {kRows};
  const Shape shapes[] = {RT_TRY(Shape::make(x_dims)), RT_TRY(Shape::make(label_dims))};
  InfeedQueue queue = RT_TRY(InfeedQueue::create({.tuple_types = types, .tuple_shapes = shapes}));
  RT_RETURN_IF_ERROR(queue.set_number_of_shards(static_cast<int>(shards)));
  return queue;
}

// TF: "Can't generate two dequeue Ops from the same queue".
Status check_second_dequeue_op(InfeedQueue& queue) {
  const Result<InfeedDequeueSignature> again = queue.generate_dequeue_op();
  if (!again.is_ok() && again.status().message() == StringView("Can't generate two dequeue Ops from the same queue"))
    return Status::ok();
  return internal_error("a second dequeue op from the same queue was not refused");
}

Status run_steps(unsigned cores, unsigned replicas, int64_t steps) {
  ReplicateOptions options;
  options.infeed_queue = &infeed.binding();
  const ReplicaArgs no_inputs[kMaxReplicas] = {};  // every argument comes from the infeed queue
  for (int64_t s = 0; s < steps; ++s) {
    PodMemoryScope step_memory(cores);
    RT_TRY(replicate(step, Span<const ReplicaArgs>(no_inputs, replicas), options));
  }
  return Status::ok();
}

// `cores` is the board's; in a pod of boards the replicas are every board's cores, each board's tpu
// streaming its own rows of every tuple (TPU per-host input).
Status program(unsigned cores) {
  const unsigned replicas = cores * pod_membership().num_tasks;
  if (kRows % replicas != 0)
    return invalid_argument("the infeed app shards 8 rows over the replicas: run it on 1, 2, 4 or 8 cores, not {}",
                            replicas);
  const int64_t steps = RT_TRY(infeed_steps(kInfeedQueue, kTimeoutNs));
  InfeedQueue queue = RT_TRY(make_queue(replicas));
  PodMemoryScope memory(cores);
  RT_RETURN_IF_ERROR(infeed.open(queue, hbm(), {.link_queue = kInfeedQueue, .slots = 4, .timeout_ns = kTimeoutNs}));
  RT_RETURN_IF_ERROR(check_second_dequeue_op(queue));
  const Status ran = run_steps(cores, replicas, steps);
  infeed.close();
  RT_RETURN_IF_ERROR(ran);
  log_info("infeed: {} replicas each dequeued {} tuples of float32[{}, {}] and int32[{}] sharded {} ways", replicas,
           steps, kRows, kColumns, kRows, replicas);
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return program(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {
    "infeed", "a dataset streamed by the host through an InfeedQueue to every replica (run with tpu run --infeed)", run};
