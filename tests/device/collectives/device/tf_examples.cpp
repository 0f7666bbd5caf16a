// The examples from TF's documentation (runtime/tpu/TF_BEHAVIOUR.md section 2), with hand-computed
// results.
#include "tests/device/collective-cases/suite.hpp"

namespace collectives_test {
namespace {

using rt::DType;
using rt::Status;

// Replica r contributes 10 * (r + 1). Groups: even replicas, odd replicas ([[0,2,4,6],[1,3,5,7]]
// for 8). Expected: the sum over the replica's parity class, computed by hand-written formula.
Status even_odd_sum(rt::Collectives& collectives) {
  const unsigned n = collectives.num_replicas();
  if (n < 2 || n % 2 != 0) return Status::ok();
  uint32_t ids[hal::kMaxCores];
  for (unsigned i = 0; i < n / 2; ++i) {
    ids[i] = 2 * i;
    ids[n / 2 + i] = 2 * i + 1;
  }
  rt::CollectiveOptions options;
  options.groups = rt::GroupAssignment{ids, 2, n / 2};
  const unsigned me = collectives.replica_id();
  const float mine = 10.0f * static_cast<float>(me + 1);
  float sum = 0;
  RT_RETURN_IF_ERROR(collectives.all_reduce(rt::ReduceOp::kSum, DType::kF32, &mine, &sum, 1, options));
  float expected = 0;
  for (unsigned r = me % 2; r < n; r += 2) expected += 10.0f * static_cast<float>(r + 1);
  if (n == 8 && expected != (me % 2 == 0 ? 160.0f : 200.0f))  // A+C+E+G = 10+30+50+70, B+D+F+H = 20+40+60+80
    return rt::internal_error("reference for the 8-replica example is wrong");
  if (sum != expected)
    return rt::internal_error("cross_replica_sum over parity groups: replica {} got {}, expected {}", me, sum, expected);
  return Status::ok();
}

// replica0 [[A,B]], replica1 [[C,D]], split_dimension=1, concat_dimension=0, split_count=2
// -> replica0 [[A],[C]], replica1 [[B],[D]]. Run on pairs of replicas: [[0,1],[2,3],...].
Status all_to_all_pairs(rt::Collectives& collectives) {
  const unsigned n = collectives.num_replicas();
  if (n < 2 || n % 2 != 0) return Status::ok();
  uint32_t ids[hal::kMaxCores];
  for (unsigned r = 0; r < n; ++r) ids[r] = r;
  rt::CollectiveOptions options;
  options.groups = rt::GroupAssignment{ids, n / 2, 2};
  const unsigned me = collectives.replica_id();
  const unsigned pair = me / 2;
  const int32_t a = static_cast<int32_t>(100 * pair + 1), b = a + 1, c = a + 2, d = a + 3;
  const int32_t input[2] = {me % 2 == 0 ? a : c, me % 2 == 0 ? b : d};
  int32_t output[2] = {};
  const int64_t shape[2] = {1, 2};
  RT_RETURN_IF_ERROR(collectives.all_to_all(DType::kI32, input, output, rt::Span<const int64_t>(shape, 2), 0, 1, 2, options));
  const int32_t expected0 = me % 2 == 0 ? a : b;
  const int32_t expected1 = me % 2 == 0 ? c : d;
  if (output[0] != expected0 || output[1] != expected1)
    return rt::internal_error("all_to_all example: replica {} got [[{}],[{}]], expected [[{}],[{}]]", me, output[0],
                              output[1], expected0, expected1);
  return Status::ok();
}

// collective_permute [[0,1],[1,2],[2,3]] on [A,B,C,D] -> [0,A,B,C]; replicas past 3 get zeros.
Status permute_chain(rt::Collectives& collectives) {
  const unsigned n = collectives.num_replicas();
  if (n < 4) return Status::ok();
  const int64_t pairs[] = {0, 1, 1, 2, 2, 3};
  const unsigned me = collectives.replica_id();
  const float mine = static_cast<float>(me + 1);  // A=1, B=2, C=3, D=4
  float received = -1;
  RT_RETURN_IF_ERROR(collectives.collective_permute(DType::kF32, &mine, &received, 1, rt::Span<const int64_t>(pairs, 6)));
  const float expected[] = {0, 1, 2, 3};
  const float want = me < 4 ? expected[me] : 0;
  if (received != want)
    return rt::internal_error("collective_permute example: replica {} got {}, expected {}", me, received, want);
  return Status::ok();
}

}  // namespace

Status run_tf_examples(rt::Collectives& collectives) {
  RT_RETURN_IF_ERROR(even_odd_sum(collectives));
  RT_RETURN_IF_ERROR(all_to_all_pairs(collectives));
  RT_RETURN_IF_ERROR(permute_chain(collectives));
  return Status::ok();
}

}  // namespace collectives_test
