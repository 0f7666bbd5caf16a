// host-function-faults: the app's host functions misbehave on purpose, to test that a user's host
// code cannot take tpu down (host-tools/lib/functions/host_function_worker.hpp). The host half reads the
// environment variable HOST_FAULT (tpu's worker inherits tpu's environment) and answers `fault_mode`
// with it; then every replica calls `count` three times (the worker keeps its state: the answers
// must be 1, 2, 3 for that core), and replica 1 calls `misbehave`, which does what HOST_FAULT says:
//   (unset)      returns a float32[2] as asked: the run passes
//   crash        dereferences a null pointer     abort   calls abort()     exit   calls exit(3)
//   hang         never returns                   throw   throws (the replica gets INTERNAL)
//   wrong-shape  returns float32[3] for a float32[2] (the replica gets INVALID_ARGUMENT)
//   two-results  returns two tensors for one (INVALID_ARGUMENT, on every link)
//   arena        (no host fault) replica 1 allocates 4 GiB in its arena (RESOURCE_EXHAUSTED)
//   leave-child, leave-daemon   starts a process (in its own session: leave-daemon) that never ends,
//                and returns as asked: the run passes, and tpu must end that process with the worker
//   leave-daemon-crash          the same, then crashes
// After a throw the replica calls `count` again, to show the app's other functions still answer.
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;
using rt::tpu::HostResult;

constexpr unsigned kMisbehavingReplica = 1;

Result<FixedString<32>> fault_mode() {
  FixedString<32> mode;
  const HostResult as_text[] = {HostResult::text(mode)};
  RT_RETURN_IF_ERROR(host_function("fault_mode", "", {}, as_text));
  return mode;
}

// `count` answers how many times this core called it: the worker process kept that across calls.
Status expect_count(ReplicaContext& replica, int32_t expected) {
  const Tensor got = RT_TRY(host_function(replica.arena(), "count", {}, DType::kI32, Shape()));
  if (got.scalar<int32_t>() != expected)
    return internal_error("replica {}: count answered {}, expected {}", replica.replica_id(), got.scalar<int32_t>(),
                          expected);
  return Status::ok();
}

Status misbehave(ReplicaContext& replica, StringView mode) {
  if (mode == StringView("arena")) {
    const int64_t elements[] = {int64_t{1} << 30};  // 4 GiB of float32
    const Shape huge = RT_TRY(Shape::make(elements));
    return replica.arena().allocate_tensor(DType::kF32, huge, "4 GiB on purpose").status();
  }
  log_info("replica {} on core {} calls misbehave ({})", replica.replica_id(), replica.core(), mode);
  const Tensor x = RT_TRY(constant<float>(replica.arena(), {2}, {1.0f, 2.0f}, "x"));
  const Status status = host_function(replica.arena(), "misbehave", {x}, DType::kF32, x.shape).status();
  if (status.code() == StatusCode::kInternal) {  // a throw: the other functions still answer
    RT_RETURN_IF_ERROR(expect_count(replica, 4));
    log_info("replica {}: count still answers after misbehave threw", replica.replica_id());
  }
  return status;
}

Status replica_work(ReplicaContext& replica, const Tensor&) {
  const FixedString<32> mode = RT_TRY(fault_mode());
  for (int32_t call = 1; call <= 3; ++call) RT_RETURN_IF_ERROR(expect_count(replica, call));
  if (replica.replica_id() == kMisbehavingReplica && !mode.view().empty()) return misbehave(replica, mode.view());
  return Status::ok();
}

Status program(unsigned cores) {
  PodMemoryScope memory(cores);
  Tensor x[kMaxReplicas];
  ReplicaArgs inputs[kMaxReplicas];
  for (unsigned r = 0; r < cores; ++r) {
    x[r] = RT_TRY(scalar(hbm(), static_cast<float>(r), "x"));
    inputs[r] = ReplicaArgs(&x[r], 1);
  }
  RT_TRY(replicate(replica_work, Span<const ReplicaArgs>(inputs, cores)));
  log_info("host-function-faults: {} replicas, the worker kept its state over 3 calls each", cores);
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return program(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {
    "host-function-faults", "host functions that crash, hang or throw on purpose (HOST_FAULT; run with tpu run)", run};
