// TF's output conventions: a computation returning nothing gives an empty result per replica (the
// NoOp), a single value comes back as a one-element tuple, several in order; inputs=None is one
// replica with zero inputs; a replica's own error is what replicate returns.
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "suite.hpp"

namespace replicate_test {
namespace {

using rt::Status;
using rt::Tensor;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ReplicaOutputs;

Status returns_nothing(ReplicaContext&, ReplicaArgs, ReplicaOutputs&) { return Status::ok(); }

// `count` scalars replica_id * 10 + i, i = 0..count-1.
Status returns_values(unsigned count, ReplicaContext& replica, ReplicaOutputs& outputs) {
  for (unsigned i = 0; i < count; ++i) {
    rt::Result<Tensor> value = i32_tensor(replica.arena(), {}, {static_cast<int32_t>(replica.replica_id() * 10 + i)});
    if (!value) return value.status();
    RT_RETURN_IF_ERROR(outputs.add(*value));
  }
  return Status::ok();
}

Status fails_on_last_replica(ReplicaContext& replica, ReplicaArgs, ReplicaOutputs&) {
  if (replica.replica_id() + 1 == replica.num_replicas())
    return rt::invalid_argument("replica {} refuses on core {}", replica.replica_id(), replica.core());
  return Status::ok();
}

Status expect_values(unsigned replicas, unsigned count, const char* what) {
  RT_RETURN_IF_ERROR(expect_output_counts(result(), replicas, count, what));
  for (unsigned r = 0; r < replicas; ++r)
    for (unsigned i = 0; i < count; ++i)
      if (i32_at(result()[r][i], 0) != static_cast<int32_t>(r * 10 + i))
        return rt::internal_error("{}: replica {} value {} is {}", what, r, i, i32_at(result()[r][i], 0));
  return Status::ok();
}

}  // namespace

Status run_convention_cases(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  const ReplicaArgs no_inputs[rt::tpu::kMaxReplicas] = {};
  const rt::Span<const ReplicaArgs> every_core(no_inputs, cores);

  const rt::tpu::Computation nothing{"returns_nothing", returns_nothing, {0}};
  RT_RETURN_IF_ERROR(rt::tpu::replicate(nothing, every_core, {}, result()));
  RT_RETURN_IF_ERROR(expect_output_counts(result(), cores, 0, "a computation returning nothing"));

  unsigned count = 1;
  const rt::tpu::Computation values{
      "returns_values",
      [&count](ReplicaContext& replica, ReplicaArgs, ReplicaOutputs& outputs) { return returns_values(count, replica, outputs); },
      {0}};
  RT_RETURN_IF_ERROR(rt::tpu::replicate(values, every_core, {}, result()));
  RT_RETURN_IF_ERROR(expect_values(cores, 1, "a single value (one-element tuple)"));
  count = 3;
  RT_RETURN_IF_ERROR(rt::tpu::replicate(values, every_core, {}, result()));
  RT_RETURN_IF_ERROR(expect_values(cores, 3, "three values in order"));

  count = 1;  // inputs=None: one replica, on core 0, with no inputs
  RT_RETURN_IF_ERROR(rt::tpu::replicate(values, {}, result()));
  RT_RETURN_IF_ERROR(expect_values(1, 1, "inputs=None"));

  const rt::tpu::Computation failing{"fails_on_last_replica", fails_on_last_replica, {0}};
  rt::FixedString<64> expected;
  rt::format_to(expected, "replica {} refuses on core {}", cores - 1, cores - 1);
  return expect_error(rt::tpu::replicate(failing, every_core, {}, result()), rt::StatusCode::kInvalidArgument,
                      expected.view(), "a replica's own error");
}

}  // namespace replicate_test
