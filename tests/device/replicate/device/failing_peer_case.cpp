// A replica that fails before a collective: its peers time out waiting for it, and replicate reports
// the cause (the failing replica's error), not the consequence (the peers' timeouts). Runs last: the
// abandoned collective may leave bytes in the mailboxes between the peers (collectives.hpp: a
// collective error is fatal for the pod's collectives).
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "suite.hpp"

namespace replicate_test {
namespace {

using rt::Status;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ReplicaOutputs;

Status last_replica_fails_first(ReplicaContext& replica, ReplicaArgs, ReplicaOutputs& outputs) {
  if (replica.replica_id() + 1 == replica.num_replicas())
    return rt::invalid_argument("replica {} gave up before its cross_replica_sum", replica.replica_id());
  rt::Result<rt::Tensor> one = f32_tensor(replica.arena(), {}, {1.0f});
  if (!one) return one.status();
  rt::Result<rt::Tensor> sum = replica.cross_replica_sum(*one);
  if (!sum) return sum.status();
  return outputs.add(*sum);
}

}  // namespace

Status run_failing_peer_case(unsigned cores) {
  if (cores < 2) return Status::ok();
  rt::tpu::PodMemoryScope memory(cores);
  const ReplicaArgs no_inputs[rt::tpu::kMaxReplicas] = {};
  const rt::tpu::Computation computation{"last_replica_fails_first", last_replica_fails_first, {0}};
  rt::tpu::ReplicateOptions options;
  options.collective_timeout_ns = 200 * hal::kNanosPerMilli;
  rt::FixedString<80> expected;
  rt::format_to(expected, "replica {} gave up before its cross_replica_sum", cores - 1);
  return expect_error(rt::tpu::replicate(computation, rt::Span<const ReplicaArgs>(no_inputs, cores), options, result()),
                      rt::StatusCode::kInvalidArgument, expected.view(), "a replica failing before a collective");
}

}  // namespace replicate_test
