// pod-sum-order: cross_replica_sum of float32 in the order the runtime documents for a group whose
// members span boards (runtime/collectives/README.md, "Across boards"): each board's partial over its
// members in group order, then the partials folded left in the group's task order (the order in
// which each task's first member appears in the group); on one board, simply the group order. The
// replicas' values are chosen so that the order shows (1e8 + 1 is 1e8 in float32):
//   element 0: 1e8 (r % 4 = 0), -1e8 (r % 4 = 2), 1 otherwise
//   element 1: 1 (r = 0), -1e8 (r = 2), 1e8 (r = 4), 0 otherwise
//   elements 2, 3: 0.1 (r + 1) and 1 / (r + 1), ordinary rounding everywhere
//   elements 4 .. 12288: mixed magnitudes from the replica and the element, so that a board of
//   several cores reduces its partial in parallel slices (from kParallelPartialMinBytes) and every
//   slice, the ragged last one too, is checked
// over two groupings: every replica in replica order, and every replica in reverse order. Every board
// checks every replica's sums bit for bit against a plain loop that adds in the documented order
// (replica r on task r / C, C cores a board), and prints the first two elements of each grouping:
//   SUM-ORDER forward <e0> <e1> reverse <e0> <e1>
// which the harness compares with values worked out by hand (tests/suite/pod_cases.py).
#include <string.h>

#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;

constexpr int64_t kElements = 12289;  // 48 KiB of float32, an odd count
constexpr unsigned kGroupings = 2;

float value(unsigned r, int64_t element) {
  switch (element) {
    case 0: return r % 4 == 0 ? 1e8f : (r % 4 == 2 ? -1e8f : 1.0f);
    case 1: return r == 0 ? 1.0f : (r == 2 ? -1e8f : (r == 4 ? 1e8f : 0.0f));
    case 2: return 0.1f * static_cast<float>(r + 1);
    case 3: return 1.0f / static_cast<float>(r + 1);
    default: return static_cast<float>(element % 97) * (r % 2 == 0 ? 1e4f : -0.37f) + 1.0f / static_cast<float>(r + 1 + element % 13);
  }
}

uint32_t forward_ids[kMaxReplicas], reverse_ids[kMaxReplicas];

GroupAssignment grouping(unsigned which, unsigned replicas) {
  for (unsigned j = 0; j < replicas; ++j) {
    forward_ids[j] = j;
    reverse_ids[j] = replicas - 1 - j;
  }
  return GroupAssignment{which == 0 ? forward_ids : reverse_ids, 1, replicas};
}

// The documented order, as a plain loop: partials per task in group order, then the tasks in order of
// first appearance.
float documented_sum(const uint32_t* group, unsigned size, unsigned cores, int64_t element) {
  float total = 0;
  bool started = false;
  bool done[kMaxReplicas] = {};
  for (unsigned first = 0; first < size; ++first) {
    const unsigned task = group[first] / cores;
    if (done[task]) continue;
    done[task] = true;
    float partial = 0;
    bool any = false;
    for (unsigned j = first; j < size; ++j)
      if (group[j] / cores == task) {
        partial = any ? partial + value(group[j], element) : value(group[j], element);
        any = true;
      }
    total = started ? total + partial : partial;
    started = true;
  }
  return total;
}

unsigned cores_per_board = 1;

Result<Tensor> sums(ReplicaContext& replica) {
  Arena& arena = replica.arena();
  const unsigned r = replica.replica_id();
  const int64_t elements = kElements;
  const Tensor x = RT_TRY(arena.allocate_tensor(DType::kF32, RT_TRY(Shape::make(Span<const int64_t>(&elements, 1))), "x"));
  for (int64_t i = 0; i < kElements; ++i) x.at<float>(i) = value(r, i);
  const int64_t size = kGroupings * kElements;
  const Tensor out = RT_TRY(arena.allocate_tensor(DType::kF32, RT_TRY(Shape::make(Span<const int64_t>(&size, 1))), "out"));
  for (unsigned g = 0; g < kGroupings; ++g) {
    const Tensor sum = RT_TRY(cross_replica_sum(x, grouping(g, replica.num_replicas())));
    for (int64_t i = 0; i < kElements; ++i) out.at<float>(g * kElements + i) = sum.at<float>(i);
  }
  return out;
}

bool same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

Status program(unsigned cores) {
  PodMemoryScope memory(cores);
  cores_per_board = cores;
  const unsigned replicas = cores * pod_membership().num_tasks;
  ReplicaArgs inputs[kMaxReplicas];
  const Replicated result = RT_TRY(replicate(sums, Span<const ReplicaArgs>(inputs, replicas)));
  for (unsigned r = 0; r < replicas; ++r)
    for (unsigned g = 0; g < kGroupings; ++g) {
      const GroupAssignment groups = grouping(g, replicas);
      for (int64_t i = 0; i < kElements; ++i) {
        const float got = result[r][0].at<float>(g * kElements + i);
        const float expected = documented_sum(groups.ids, replicas, cores, i);
        if (!same_bits(got, expected))
          return internal_error("replica {}, {} grouping, element {}: {} across boards, the documented order gives {}", r,
                                g == 0 ? "forward" : "reverse", i, got, expected);
      }
    }
  const Tensor& first = result[0][0];
  log_info("SUM-ORDER forward {} {} reverse {} {}", first.at<float>(0), first.at<float>(1), first.at<float>(kElements),
           first.at<float>(kElements + 1));
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return program(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {"pod-sum-order",
                                      "test image: float32 sums across boards in the documented order", run};
