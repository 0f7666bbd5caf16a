// pod-replica-error: a replicate over a pod whose last replica returns an error between two
// cross_replica_sums (a test image). Its peers on its board stop waiting for it at once (CANCELLED),
// its board reports the replica's own error, and the other boards, waiting across boards, are
// stopped by the pod: nobody waits out the collectives' 10 s timeout.
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;

Result<Tensor> last_replica_fails(ReplicaContext& replica) {
  const Tensor one = RT_TRY(scalar(replica.arena(), 1.0f, "one"));
  const Tensor everyone = RT_TRY(replica.cross_replica_sum(one));  // every board is up and in the call
  if (replica.replica_id() + 1 == replica.num_replicas())
    return invalid_argument("replica {} gave up after its first cross_replica_sum", replica.replica_id());
  return replica.cross_replica_sum(everyone);
}

Status program(unsigned cores) {
  PodMemoryScope memory(cores);
  ReplicaArgs inputs[kMaxReplicas];
  RT_TRY(replicate(last_replica_fails, Span<const ReplicaArgs>(inputs, cores * pod_membership().num_tasks)));
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return program(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {"pod-replica-error",
                                      "test image: in a pod, the last replica fails while the others wait for it", run};
