// Invalid calls must fail with TF's error texts (identically on every core, so the sequence of
// collectives stays aligned), and a core must never hang on them.
#include "tests/device/collective-cases/suite.hpp"

namespace collectives_test {
namespace {

using rt::DType;
using rt::Status;

Status expect_error(const Status& status, rt::StringView expected, const char* what) {
  if (status.is_ok()) return rt::internal_error("{}: succeeded, expected error \"{}\"", what, expected);
  if (!(status.message() == expected))
    return rt::internal_error("{}: error \"{}\", expected \"{}\"", what, status.message(), expected);
  return Status::ok();
}

}  // namespace

Status run_error_cases(rt::Collectives& collectives) {
  const unsigned n = collectives.num_replicas();
  float value = 1, out = 0;
  rt::CollectiveOptions options;

  options.groups = rt::GroupAssignment{nullptr, 1, 0};
  RT_RETURN_IF_ERROR(expect_error(collectives.all_reduce(rt::ReduceOp::kSum, DType::kF32, &value, &out, 1, options),
                                  "Instruction cannot have an empty replica group: [[]]", "empty group"));
  if (n >= 2) {
    const uint32_t repeated[] = {0, 0};
    options.groups = rt::GroupAssignment{repeated, 1, 2};
    RT_RETURN_IF_ERROR(expect_error(collectives.all_reduce(rt::ReduceOp::kSum, DType::kF32, &value, &out, 1, options),
                                    "Replica 0 is repeated in instruction's replica-groups: [[0, 0]]", "repeated replica"));
    const uint32_t partial[] = {0};  // XLA's verifier: groups must cover every replica
    options.groups = rt::GroupAssignment{partial, 1, 1};
    rt::FixedString<96> text;
    rt::format_to(text, "In kCrossReplica mode, replica groups should contain {} replicas, but found 1: [[0]]", n);
    RT_RETURN_IF_ERROR(expect_error(collectives.all_reduce(rt::ReduceOp::kSum, DType::kF32, &value, &out, 1, options),
                                    text.view(), "groups covering one replica"));
    const uint32_t gap[] = {0, 2};  // XLA: the ids below the count of distinct ids must all be named
    options.groups = rt::GroupAssignment{gap, 1, 2};
    RT_RETURN_IF_ERROR(expect_error(collectives.all_reduce(rt::ReduceOp::kSum, DType::kF32, &value, &out, 1, options),
                                    "Replica 1 is not named in instruction's replica-groups: [[0, 2]]", "missing replica"));
  }
  options = rt::CollectiveOptions{};
  const int64_t shape[] = {2, 3};
  RT_RETURN_IF_ERROR(expect_error(collectives.all_to_all(DType::kF32, &value, &out, rt::Span<const int64_t>(shape, 2), 0, 1, 0),
                                  "split_count 0 must at least be one.", "split_count 0"));
  RT_RETURN_IF_ERROR(expect_error(collectives.all_to_all(DType::kF32, &value, &out, rt::Span<const int64_t>(shape, 2), 2, 0, n),
                                  "concat_dimension 2 is out of range of input rank 2", "concat_dimension"));
  {  // TF's shape check prints the group's size, not the assignment
    rt::FixedString<96> text;
    rt::format_to(text, "split_count {} must equal the size of the second dimension of group_assignment {}", n + 1, n);
    RT_RETURN_IF_ERROR(expect_error(
        collectives.all_to_all(DType::kF32, &value, &out, rt::Span<const int64_t>(shape, 2), 0, 1, n + 1), text.view(),
        "split_count against the group size"));
  }
  RT_RETURN_IF_ERROR(expect_error(collectives.all_to_all(DType::kF32, &value, &out, rt::Span<const int64_t>(shape, 2), 0, -1, n),
                                  "split_dimension -1 is out of range of input rank 2", "split_dimension"));
  if (n == 2) {
    RT_RETURN_IF_ERROR(expect_error(collectives.all_to_all(DType::kF32, &value, &out, rt::Span<const int64_t>(shape, 2), 0, 1, 2),
                                    "input dimension 3 not divisible by split_count 2", "indivisible split"));
  }
  {  // XLA's range texts, source before target
    const int64_t beyond[] = {0, static_cast<int64_t>(n)};
    rt::FixedString<128> text;
    rt::format_to(text, "Target {} in the instruction's source-target pair must be < {} : [[0, {}]]", n, n, n);
    RT_RETURN_IF_ERROR(expect_error(collectives.collective_permute(DType::kF32, &value, &out, 1, rt::Span<const int64_t>(beyond, 2)),
                                    text.view(), "target out of range"));
    const int64_t negative[] = {-1, 0};
    RT_RETURN_IF_ERROR(expect_error(collectives.collective_permute(DType::kF32, &value, &out, 1, rt::Span<const int64_t>(negative, 2)),
                                    "Source -1 in the instruction's source-target pair must be >= 0 : [[-1, 0]]",
                                    "negative source"));
  }
  const int64_t duplicate_source[] = {0, 0, 0, 0};
  RT_RETURN_IF_ERROR(expect_error(
      collectives.collective_permute(DType::kF32, &value, &out, 1, rt::Span<const int64_t>(duplicate_source, 4)),
      "Source 0 appears more than once in instruction's source-target pairs: [[0, 0], [0, 0]]", "duplicate source"));
  if (n >= 2) {
    const int64_t duplicate_target[] = {0, 1, 1, 1};
    RT_RETURN_IF_ERROR(expect_error(
        collectives.collective_permute(DType::kF32, &value, &out, 1, rt::Span<const int64_t>(duplicate_target, 4)),
        "Target 1 appears more than once in instruction's source-target pairs: [[0, 1], [1, 1]]", "duplicate target"));
  }
  const int64_t odd_pairs[] = {0, 1, 1};
  RT_RETURN_IF_ERROR(expect_error(collectives.collective_permute(DType::kF32, &value, &out, 1, rt::Span<const int64_t>(odd_pairs, 3)),
                                  "source_target_pairs must have shape [n, 2]; got 3 values", "pairs shape"));
  float both[16] = {};
  RT_RETURN_IF_ERROR(expect_error(collectives.all_gather(DType::kF32, both, both, 1),
                                  "all_gather: input and output buffers overlap (only all_reduce may run in place)",
                                  "all_gather in place"));
  RT_RETURN_IF_ERROR(expect_error(
      collectives.all_reduce(rt::ReduceOp::kSum, DType::kF32, both, both + 1, 4),
      "cross_replica_sum: output overlaps input without being the same buffer", "all_reduce partial overlap"));
  const int64_t negative[] = {-2, 2};
  RT_RETURN_IF_ERROR(expect_error(
      collectives.all_to_all(DType::kF32, &value, &out, rt::Span<const int64_t>(negative, 2), 0, 1, n),
      "all_to_all: dimension 0 of the input shape is negative (-2)", "negative dimension"));
  int8_t bytes[2] = {1, 2};
  RT_RETURN_IF_ERROR(expect_error(
      collectives.all_reduce(rt::ReduceOp::kSum, DType::kI8, bytes, bytes, 2),
      "cross_replica_sum does not support dtype int8; supported: float16, bfloat16, float32, float64, int32, uint32",
      "int8 all_reduce"));
  return Status::ok();
}

}  // namespace collectives_test
