// @NAME@, device half: every core is one replica of `scaled_sum`, which sends its input to the host
// function `scale` (host/functions.cpp, run on your PC by `tpu run`), sums the answers across the
// replicas (cross_replica_sum) and returns the sum. The boot core checks every replica's result
// against the same arithmetic done here.
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;

// Element i of what every replica returns: the sum over replicas r of 2 * (r + 1 + i) + 1.
float expected(unsigned replicas, int i) {
  float sum = 0;
  for (unsigned r = 0; r < replicas; ++r) sum += 2.0f * static_cast<float>(r + 1 + i) + 1.0f;
  return sum;
}

// `cores` is this board's; on a pod of boards (tpu run --boards K) the replicas are every board's
// cores and each board runs its own (and sees every replica's outputs).
Status program(unsigned cores) {
  PodMemoryScope memory(cores);  // gives back what the calls below allocate
  const unsigned replicas = cores * pod_membership().num_tasks;
  auto scaled_sum = [](ReplicaContext& replica, const Tensor& x) -> Result<Tensor> {
    const Tensor scaled = RT_TRY(host_function(replica.arena(), "scale", {x}, DType::kF32, x.shape));
    return replica.cross_replica_sum(scaled);
  };
  Tensor inputs[kMaxReplicas];  // replica r's x: r + 1, r + 2, r + 3
  ReplicaArgs rows[kMaxReplicas];
  for (unsigned r = 0; r < replicas; ++r) {
    const float x = static_cast<float>(r + 1);
    inputs[r] = RT_TRY(constant<float>(hbm(), {3}, {x, x + 1, x + 2}, "x"));
    rows[r] = ReplicaArgs(&inputs[r], 1);
  }
  const Replicated output = RT_TRY(replicate(scaled_sum, Span<const ReplicaArgs>(rows, replicas)));
  for (unsigned r = 0; r < replicas; ++r)
    for (int i = 0; i < 3; ++i)
      if (output[r][0].at<float>(i) != expected(replicas, i))
        return internal_error("replica {} element {}: got {}, expected {}", r, i, output[r][0].at<float>(i),
                              expected(replicas, i));
  log_info("@NAME@: {} replicas checked", replicas);
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return program(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {"@NAME@", "a program of your own (made by tpu new)", run};
