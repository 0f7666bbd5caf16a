// pod-hang: a replicate over a pod whose replicas on the last task never enter the cross_replica_sum
// the others wait in (a test image). The waiting boards must give up after the collective timeout
// (3 s here) with an error naming the collective across boards, the whole pod must end non-zero, and
// no rank may hang.
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;

Result<Tensor> skips_on_last_task(ReplicaContext& replica) {
  const Tensor x = RT_TRY(scalar(replica.arena(), 1.0f, "x"));
  const PodMembership& pod = pod_membership();
  if (pod.task + 1 == pod.num_tasks) return x;  // never enters the collective
  return cross_replica_sum(x);
}

Status program(unsigned cores) {
  PodMemoryScope memory(cores);
  ReplicaArgs inputs[kMaxReplicas];
  ReplicateOptions options;
  options.collective_timeout_ns = 3000ull * 1000000;
  RT_TRY(replicate(skips_on_last_task, Span<const ReplicaArgs>(inputs, cores * pod_membership().num_tasks), options));
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return program(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {"pod-hang", "test image: in a pod, the last task's replicas skip a collective",
                                      run};
