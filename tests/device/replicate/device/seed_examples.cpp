// The seed example of tf.compat.v1.tpu.replicate's documentation, written as the README shows it
// (a lambda, returned values) and checked against hand-computed values:
//   def computation(x): x = x + 1; return tf.math.reduce_mean(x)
//   x = [1., 2., 3.]; y = [4., 5., 6.]; replicate(computation, inputs=[[x], [y]])  ->  [[3.0], [6.0]]
// and its cross-replica form, the mean over every replica's elements through cross_replica_sum:
//   computation(x) = cross_replica_sum(reduce_sum(x + 1)) / (size(x) * num_replicas)  ->  4.5 on both.
// On a 2-core board the two replicas take TF's default placement; on any other core count they run
// under a device assignment (the default placement needs 1 or every core); the same computations
// then run on one replica per core.
#include "firmware/tpu_pod.hpp"
#include "suite.hpp"

namespace replicate_test {
namespace {

using rt::Result;
using rt::Status;
using rt::Tensor;
using rt::tpu::ReplicaContext;
using rt::tpu::Replicated;

// The documentation's computation: reduce_mean(x + 1).
Result<Tensor> add_one_then_mean(ReplicaContext& replica, const Tensor& x) {
  const Tensor x1 = RT_TRY(rt::add(replica.arena(), x, 1.0f));
  return rt::reduce_mean(replica.arena(), x1);
}

// The mean over every replica's elements: cross_replica_sum(reduce_sum(x + 1)) / (size(x) * replicas).
Result<Tensor> add_one_then_global_mean(ReplicaContext& replica, const Tensor& x) {
  const Tensor x1 = RT_TRY(rt::add(replica.arena(), x, 1.0f));
  const Tensor total = RT_TRY(replica.cross_replica_sum(RT_TRY(rt::reduce_sum(replica.arena(), x1))));
  return rt::div(replica.arena(), total, static_cast<float>(x.num_elements() * replica.num_replicas()));
}

Status expect_scalars(const Replicated& output, unsigned replicas, const float* expected, const char* what) {
  RT_RETURN_IF_ERROR(expect_output_counts(output.result(), replicas, 1, what));
  for (unsigned r = 0; r < replicas; ++r) {
    const Tensor& out = output[r][0];
    if (out.shape.rank != 0 || out.dtype != rt::DType::kF32 || out.scalar<float>() != expected[r])
      return rt::internal_error("{}: replica {} returned {} (rank {}), expected the float32 scalar {}", what, r,
                                f32_at(out, 0), out.shape.rank, expected[r]);
  }
  return Status::ok();
}

// inputs=[[x], [y]] as in TF's documentation (one replica, [[x]], on a 1-core board).
Status documented_example(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  const Tensor x = RT_TRY(rt::constant<float>(rt::hbm(), {3}, {1, 2, 3}));
  const Tensor y = RT_TRY(rt::constant<float>(rt::hbm(), {3}, {4, 5, 6}));
  const unsigned replicas = cores >= 2 ? 2 : 1;
  const rt::tpu::Topology topology = RT_TRY(rt::tpu::Topology::for_cores(static_cast<int>(cores)));
  const rt::tpu::DeviceAssignment assignment =
      RT_TRY(rt::tpu::DeviceAssignment::build(topology, {}, {}, static_cast<int>(replicas)));
  rt::tpu::ReplicateOptions options;
  if (cores != 2) options.device_assignment = &assignment;  // 2 cores: TF's default placement

  const Replicated means = replicas == 2 ? RT_TRY(rt::tpu::replicate(add_one_then_mean, {{x}, {y}}, options))
                                         : RT_TRY(rt::tpu::replicate(add_one_then_mean, {{x}}, options));
  const float expected_means[] = {3.0f, 6.0f};  // mean(2, 3, 4), mean(5, 6, 7)
  RT_RETURN_IF_ERROR(expect_scalars(means, replicas, expected_means, "seed example reduce_mean(x + 1)"));

  const Replicated global = replicas == 2 ? RT_TRY(rt::tpu::replicate(add_one_then_global_mean, {{x}, {y}}, options))
                                          : RT_TRY(rt::tpu::replicate(add_one_then_global_mean, {{x}}, options));
  const float expected_global[] = {replicas == 2 ? 4.5f : 3.0f, 4.5f};  // (9 + 18) / 6
  return expect_scalars(global, replicas, expected_global, "seed example through cross_replica_sum");
}

// One replica per core (no device assignment): replica r gets [1, 2, 3] + 3r.
Status example_on_every_core(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  Tensor tensors[rt::tpu::kMaxReplicas];
  rt::tpu::ReplicaArgs inputs[rt::tpu::kMaxReplicas];
  float means[rt::tpu::kMaxReplicas], global[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < cores; ++r) {
    const float base = 3.0f * static_cast<float>(r);
    tensors[r] = RT_TRY(rt::constant<float>(rt::hbm(), {3}, {1 + base, 2 + base, 3 + base}));
    inputs[r] = rt::tpu::ReplicaArgs(&tensors[r], 1);
    means[r] = 3.0f + base;                                               // mean(x + 1)
    global[r] = 3.0f + 1.5f * static_cast<float>(cores - 1);              // (9N + 9N(N-1)/2) / 3N
  }
  const rt::Span<const rt::tpu::ReplicaArgs> replicated(inputs, cores);
  RT_RETURN_IF_ERROR(expect_scalars(RT_TRY(rt::tpu::replicate(add_one_then_mean, replicated)), cores, means,
                                    "reduce_mean(x + 1) on every core"));
  return expect_scalars(RT_TRY(rt::tpu::replicate(add_one_then_global_mean, replicated)), cores, global,
                        "global mean on every core");
}

// A lambda that captures: each replica scales its input by a captured factor; the arity TF checks
// comes from the lambda's parameters (two tensors given to a one-tensor lambda is TF's arity error).
Status capturing_lambda(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  const float factor = 2.5f;
  auto scaled = [factor](ReplicaContext& replica, const Tensor& x) { return rt::mul(replica.arena(), x, factor); };
  const Tensor x = RT_TRY(rt::constant<float>(rt::hbm(), {2}, {1, -2}));
  rt::tpu::ReplicaArgs inputs[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < cores; ++r) inputs[r] = rt::tpu::ReplicaArgs(&x, 1);
  const Replicated output = RT_TRY(rt::tpu::replicate(scaled, rt::Span<const rt::tpu::ReplicaArgs>(inputs, cores)));
  for (unsigned r = 0; r < cores; ++r)
    if (output[r][0].at<float>(0) != 2.5f || output[r][0].at<float>(1) != -5.0f)
      return rt::internal_error("captured factor: replica {} returned [{}, {}], expected [2.5, -5]", r,
                                output[r][0].at<float>(0), output[r][0].at<float>(1));
  const Tensor two[] = {x, x};
  rt::tpu::ReplicaArgs too_many[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < cores; ++r) too_many[r] = rt::tpu::ReplicaArgs(two, 2);
  const Result<Replicated> refused = rt::tpu::replicate(scaled, rt::Span<const rt::tpu::ReplicaArgs>(too_many, cores));
  return expect_error(refused.is_ok() ? Status::ok() : refused.status(), rt::StatusCode::kInvalidArgument,
                      "Supplied computation cannot be called with the specified inputs. You specified 2 inputs: "
                      "['Placeholder:0', 'Placeholder_1:0'], but the computation needs exactly 1 argument",
                      "a one-tensor lambda given two inputs");
}

}  // namespace

Status run_seed_examples(unsigned cores) {
  RT_RETURN_IF_ERROR(documented_example(cores));
  RT_RETURN_IF_ERROR(example_on_every_core(cores));
  return capturing_lambda(cores);
}

}  // namespace replicate_test
