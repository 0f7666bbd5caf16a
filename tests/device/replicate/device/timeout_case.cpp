// A replica that does not answer in time: replicate fails with a timeout naming the core and the
// replica, and the pod stays usable (the next replicate waits for the late core to finish).
#include "hal/doorbell.hpp"
#include "hal/time.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "suite.hpp"

namespace replicate_test {
namespace {

using rt::Status;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ReplicaOutputs;

constexpr uint64_t kSlowNs = 300 * hal::kNanosPerMilli;
constexpr uint64_t kTimeoutNs = 50 * hal::kNanosPerMilli;

// Sleeps on the core's doorbell rather than spinning, so that under -icount the delay costs no
// instructions (a spinning core would make single-threaded TCG run 300 ms worth of them). A ring
// consumed here is harmless: mailbox waits re-check their condition before they sleep.
void sleep_ns(uint64_t nanoseconds) {
  const uint64_t end = hal::deadline_after(nanoseconds);
  while (hal::time_ns() < end) hal::doorbell_wait(end);
}

// Replica 1 takes kSlowNs; the others return at once (no collectives, so nobody waits for it).
Status slow_replica_one(ReplicaContext& replica, ReplicaArgs, ReplicaOutputs& outputs) {
  if (replica.replica_id() == 1) sleep_ns(kSlowNs);
  rt::Result<rt::Tensor> id = i32_tensor(replica.arena(), {}, {static_cast<int32_t>(replica.replica_id())});
  if (!id) return id.status();
  return outputs.add(*id);
}

}  // namespace

Status run_timeout_case(unsigned cores) {
  if (cores < 2) return Status::ok();
  rt::tpu::PodMemoryScope memory(cores);
  const ReplicaArgs no_inputs[rt::tpu::kMaxReplicas] = {};
  const rt::Span<const ReplicaArgs> every_core(no_inputs, cores);
  const rt::tpu::Computation slow{"slow", slow_replica_one, {0}};
  rt::tpu::ReplicateOptions options;
  options.timeout_ns = kTimeoutNs;
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::replicate(slow, every_core, options, result()),
                                  rt::StatusCode::kDeadlineExceeded,
                                  "core 0 timed out after 50 ms waiting for core 1 to complete replica 1 of 'slow'",
                                  "a replica that does not answer"));
  RT_RETURN_IF_ERROR(rt::tpu::replicate(slow, every_core, {}, result()));  // waits for core 1, then runs again
  RT_RETURN_IF_ERROR(expect_output_counts(result(), cores, 1, "after a timeout"));
  for (unsigned r = 0; r < cores; ++r)
    if (i32_at(result()[r][0], 0) != static_cast<int32_t>(r))
      return rt::internal_error("after a timeout: replica {} returned {}", r, i32_at(result()[r][0], 0));
  return Status::ok();
}

}  // namespace replicate_test
