// A replica that fails before a collective: its peers stop waiting for it at once (CANCELLED, naming
// the failed core; not at the collectives' 10 s timeout), and replicate reports the cause (the
// failing replica's error), not the consequence (the peers' cancellations). Runs last: the abandoned
// collective may leave bytes in the mailboxes between the peers (replicate drops them once every core
// of the failed call is idle).
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "suite.hpp"

namespace replicate_test {
namespace {

using rt::Status;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ReplicaOutputs;

// What each replica's cross_replica_sum returned.
Status sums_returned[rt::tpu::kMaxReplicas];

Status last_replica_fails_first(ReplicaContext& replica, ReplicaArgs, ReplicaOutputs& outputs) {
  if (replica.replica_id() + 1 == replica.num_replicas())
    return rt::invalid_argument("replica {} gave up before its cross_replica_sum", replica.replica_id());
  rt::Result<rt::Tensor> one = f32_tensor(replica.arena(), {}, {1.0f});
  if (!one) return one.status();
  rt::Result<rt::Tensor> sum = replica.cross_replica_sum(*one);
  sums_returned[replica.replica_id()] = sum ? Status::ok() : sum.status();
  if (!sum) return sum.status();
  return outputs.add(*sum);
}

// Replica r runs on core r (the default device assignment); the last one failed. A peer stopped
// either for it ("...: core 3 failed in the same launch") or for a peer that stopped for it first
// ("...: core 1 stopped (core 3 failed in the same launch)").
Status expect_cancelled(unsigned replica, unsigned failed_core) {
  const Status& status = sums_returned[replica];
  rt::FixedString<48> start, end;
  rt::format_to(start, "core {} stopped waiting in all_reduce #", replica);
  rt::format_to(end, "core {} failed in the same launch", failed_core);
  if (status.code() != rt::StatusCode::kCancelled || !status.message().starts_with(start.view()) ||
      !status.message().ends_with(end.view()))
    return rt::internal_error("replica {}'s cross_replica_sum after its peer failed: {} \"{}\", expected CANCELLED "
                              "\"{}<sequence>: ...{}\"",
                              replica, rt::status_code_name(status.code()), status.message(), start.view(), end.view());
  return Status::ok();
}

}  // namespace

Status run_failing_peer_case(unsigned cores) {
  if (cores < 2) return Status::ok();
  rt::tpu::PodMemoryScope memory(cores);
  const ReplicaArgs no_inputs[rt::tpu::kMaxReplicas] = {};
  const rt::tpu::Computation computation{"last_replica_fails_first", last_replica_fails_first, {0}};
  rt::FixedString<80> expected;
  rt::format_to(expected, "replica {} gave up before its cross_replica_sum", cores - 1);
  RT_RETURN_IF_ERROR(expect_error(
      rt::tpu::replicate(computation, rt::Span<const ReplicaArgs>(no_inputs, cores), {}, result()),
      rt::StatusCode::kInvalidArgument, expected.view(), "a replica failing before a collective"));
  for (unsigned replica = 0; replica + 1 < cores; ++replica) RT_RETURN_IF_ERROR(expect_cancelled(replica, cores - 1));
  return Status::ok();
}

}  // namespace replicate_test
