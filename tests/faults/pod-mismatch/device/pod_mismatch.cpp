// pod-mismatch: a replicate over a pod whose boards call the same cross_replica_sum with operands that
// do not agree (a test image): task 0's replicas sum a float32 [2, 2], the other boards' a float32
// [4] with boards of 1 core (the same elements in another shape), a float32 [6] with boards of 2 cores
// (another count). One board refuses such a collective among its own replicas ("collective
// mismatch"); across boards every board must say so too, instead of summing what it got.
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;

Result<Tensor> mismatched_sum(ReplicaContext& replica) {
  const bool first_board = pod_membership().task == 0;
  const bool same_count = replica.num_replicas() == pod_membership().num_tasks;  // boards of 1 core
  const int64_t square[] = {2, 2}, flat[] = {same_count ? 4 : 6};
  const Shape shape = RT_TRY(first_board ? Shape::make(square) : Shape::make(flat));
  const Tensor x = RT_TRY(replica.arena().allocate_tensor(DType::kF32, shape, "x"));
  for (float& value : x.values<float>()) value = 1.0f;
  return replica.cross_replica_sum(x);
}

Status program(unsigned cores) {
  PodMemoryScope memory(cores);
  ReplicaArgs inputs[kMaxReplicas];
  RT_TRY(replicate(mismatched_sum, Span<const ReplicaArgs>(inputs, cores * pod_membership().num_tasks)));
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return program(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {"pod-mismatch",
                                      "test image: in a pod, the boards call one collective with different operands", run};
