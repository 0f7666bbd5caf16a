// collectives: the collective operations on every core, checked against sequential references:
// TF's documented examples, random cases (kinds, dtypes, sizes, groups, algorithms), error texts,
// and finally that mismatched calls across cores fail with a clear error instead of hanging.
#include "tests/device/collective-cases/suite.hpp"

#include "hal/core.hpp"
#include "runtime/log/log.hpp"

namespace collectives_test {
namespace {

constexpr unsigned kRandomCases = 60;

// Core 0 calls all_reduce with one element fewer than everybody else. Every core must come back
// with an error: the call descriptions the members exchange first disagree, so every core stops
// before touching another core's memory.
rt::Status mismatched_sizes(rt::Collectives& collectives) {
  if (collectives.num_replicas() < 2) return rt::Status::ok();
  rt::CollectiveOptions options;
  options.timeout_ns = 300 * hal::kNanosPerMilli;
  options.algorithm = rt::Algorithm::kLatency;
  float data[8] = {};
  const size_t count = collectives.replica_id() == 0 ? 7 : 8;
  const rt::Status status = collectives.all_reduce(rt::ReduceOp::kSum, rt::DType::kF32, data, data, count, options);
  if (status.is_ok()) return rt::internal_error("mismatched all_reduce sizes were not detected");
  rt::log_info("mismatch detected as expected: {}", status.message());
  return rt::Status::ok();
}

// Every replica its own group, in place: sum and max of one value are that value, bit for bit (a
// signalling NaN's pattern and -0 included, which a pass through the kernel could change), and mean
// divides by 1.
rt::Status groups_of_one_in_place(rt::Collectives& collectives) {
  const unsigned n = collectives.num_replicas();
  uint32_t ids[hal::kMaxCores];
  for (unsigned i = 0; i < n; ++i) ids[i] = i;
  rt::CollectiveOptions options;
  options.groups = rt::GroupAssignment{ids, n, 1};
  const uint32_t given[] = {0x7fa00001u, 0x80000000u, 0x3f800000u + collectives.replica_id(), 0xc2f60000u};
  for (const rt::ReduceOp op : {rt::ReduceOp::kSum, rt::ReduceOp::kMax, rt::ReduceOp::kMean}) {
    uint32_t data[4];
    __builtin_memcpy(data, given, sizeof data);
    RT_RETURN_IF_ERROR(collectives.all_reduce(op, rt::DType::kF32, data, data, 4, options));
    for (unsigned i = op == rt::ReduceOp::kMean ? 1 : 0; i < 4; ++i)  // mean may quiet the NaN
      if (data[i] != given[i])
        return rt::internal_error("all_reduce {} in place over a group of one changed element {}: {:#x} became {:#x}",
                                  rt::reduce_op_name(op), i, given[i], data[i]);
  }
  return rt::Status::ok();
}

// The eager algorithm carries a payload in its messages: one above its limit is refused on every
// core, before anything is sent, naming the limit.
rt::Status eager_refuses_large_payloads(rt::Collectives& collectives) {
  rt::CollectiveOptions options;
  options.algorithm = rt::Algorithm::kEager;
  static float data[hal::kMaxCores][rt::kEagerAlgorithmMaxBytes / 4 + 1];
  float* mine = data[collectives.replica_id()];
  const rt::Status status = collectives.all_reduce(rt::ReduceOp::kSum, rt::DType::kF32, mine, mine,
                                                   rt::kEagerAlgorithmMaxBytes / 4 + 1, options);
  if (status.code() != rt::StatusCode::kInvalidArgument ||
      !status.message().ends_with("the eager algorithm takes at most 256 bytes, not 260"))
    return rt::internal_error("an eager all_reduce of 260 bytes: {}", status.message());
  return rt::Status::ok();
}

// Replica 0 sums 4 float32 with the eager algorithm (its message: the call's description and 16 bytes
// of data, 48 in all) while the others sum 3000 with the latency one (their message: a whole
// description with addresses, 48 bytes too). The sizes agree, so the descriptions decide: every core
// reports the mismatch, naming both calls, and no core touches another's memory.
rt::Status eager_against_another_algorithm(rt::Collectives& collectives) {
  if (collectives.num_replicas() < 2) return rt::Status::ok();
  static float data[hal::kMaxCores][3000];
  const bool eager = collectives.replica_id() == 0;
  rt::CollectiveOptions options;
  options.algorithm = eager ? rt::Algorithm::kEager : rt::Algorithm::kLatency;
  float* mine = data[collectives.replica_id()];
  const rt::Status status = collectives.all_reduce(rt::ReduceOp::kSum, rt::DType::kF32, mine, mine, eager ? 4 : 3000,
                                                   options);
  const unsigned n = collectives.num_replicas();
  rt::FixedString<200> expected;
  if (eager)
    rt::format_to(expected, "collective mismatch with replica 1: all_reduce sum of 4 float32 (algorithm 3, group of {}) "
                  "here, all_reduce sum of 3000 float32 (algorithm 1, group of {}) there", n, n);
  else
    rt::format_to(expected, "collective mismatch with replica 0: all_reduce sum of 3000 float32 (algorithm 1, group of "
                  "{}) here, all_reduce sum of 4 float32 (algorithm 3, group of {}) there", n, n);
  if (status.code() != rt::StatusCode::kInvalidArgument || !status.message().ends_with(expected.view()))
    return rt::internal_error("an eager all_reduce against a latency one: '{}', expected it to end '{}'", status.message(),
                              expected.view());
  return rt::Status::ok();
}

}  // namespace

rt::Status run(const firmware::CoreContext& context) {
  rt::Collectives collectives(rt::ReplicaSet::one_per_core(context.cores), context.core);
  RT_RETURN_IF_ERROR(run_tf_examples(collectives));
  RT_RETURN_IF_ERROR(run_random_cases(collectives, kRandomCases));
  RT_RETURN_IF_ERROR(run_error_cases(collectives));
  RT_RETURN_IF_ERROR(groups_of_one_in_place(collectives));
  RT_RETURN_IF_ERROR(eager_refuses_large_payloads(collectives));
  RT_RETURN_IF_ERROR(eager_against_another_algorithm(collectives));
  RT_RETURN_IF_ERROR(collectives.barrier());
  return mismatched_sizes(collectives);  // last: leaves the mailboxes out of step
}

}  // namespace collectives_test

const firmware::App firmware::kApp = {
    "collectives",
    "collectives against sequential references: TF examples, random cases, error texts",
    collectives_test::run,
};
