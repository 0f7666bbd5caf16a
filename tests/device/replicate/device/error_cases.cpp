// replicate's error texts (runtime/tpu/TF_BEHAVIOUR.md section 1 and the num_replicas rule of
// section 5), each checked word for word, plus the runtime's own refusals (an infeed binding without a dequeue function); a
// replica on two cores runs (model parallelism).
#include "runtime/ops/arena_ops.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "suite.hpp"

namespace replicate_test {
namespace {

using rt::Status;
using rt::StatusCode;
using rt::Tensor;
using rt::tpu::MaximumShape;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ReplicaOutputs;

Status identity(ReplicaContext&, ReplicaArgs args, ReplicaOutputs& outputs) {
  for (const Tensor& arg : args) RT_RETURN_IF_ERROR(outputs.add(arg));
  return Status::ok();
}

// Shared by every replica's nested call, which fails before it touches its result.
rt::tpu::ReplicateResult inner;

// Calls replicate from inside a replicated computation.
Status nests_replicate(ReplicaContext&, ReplicaArgs, ReplicaOutputs&) {
  const rt::tpu::Computation nothing{"inner", identity, {0}};
  return rt::tpu::replicate(nothing, {}, inner);
}

// cross_replica_sum with groups [[0]] on 2+ replicas: every replica gets XLA's error.
Status bad_groups(ReplicaContext& replica, ReplicaArgs args, ReplicaOutputs&) {
  return replica.cross_replica_sum(args[0], rt::group_assignment({{0}})).status();
}

// Replica 1 sums its [2] input as [1, 2]: as many elements as the others' [2], in another shape,
// which XLA's one program per replica cannot express; here it is a collective mismatch.
Status reshapes_on_replica_1(ReplicaContext& replica, ReplicaArgs args, ReplicaOutputs&) {
  const Tensor x = replica.replica_id() == 1 ? RT_TRY(rt::reshape(replica.arena(), args[0], {1, 2})) : args[0];
  return replica.cross_replica_sum(x).status();
}

const rt::StringView kOneName[] = {"x"};
const rt::tpu::Computation kOneArg{"identity", identity, {1, 0, false, kOneName}};
const rt::tpu::Computation kTwoArgs{"identity", identity, {2}};

struct Inputs {
  Tensor f32;
  Tensor i32;
};

rt::Result<Inputs> make_inputs() {
  const int64_t two[] = {2};
  rt::Result<Tensor> f32 = f32_tensor(rt::hbm(), two, {1.0f, 2.0f});
  rt::Result<Tensor> i32 = i32_tensor(rt::hbm(), two, {1, 2});
  if (!f32 || !i32) return !f32 ? f32.status() : i32.status();
  return Inputs{*f32, *i32};
}

Status input_checks(const Inputs& in) {
  const Tensor one[] = {in.f32}, two[] = {in.f32, in.f32}, other[] = {in.i32};
  const ReplicaArgs counts[] = {ReplicaArgs(one), ReplicaArgs(two)};
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::replicate(kOneArg, counts, {}, result()), StatusCode::kInvalidArgument,
                                  "Replicas must have the same number of inputs. Replica 0 had 1 inputs, replica 1 had "
                                  "2 inputs.",
                                  "input counts"));
  const ReplicaArgs types[] = {ReplicaArgs(one), ReplicaArgs(other)};
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::replicate(kOneArg, types, {}, result()), StatusCode::kInvalidArgument,
                                  "Replicas must have matching input types. Replica 0 had input types [tf.float32], "
                                  "replica 1 had input types [tf.int32]",
                                  "input types"));
  const ReplicaArgs single[] = {ReplicaArgs(one)};
  rt::tpu::ReplicateOptions named;
  const rt::StringView names[] = {"x:0"};
  named.input_names = names;
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::replicate(kTwoArgs, single, named, result()), StatusCode::kInvalidArgument,
                                  "Supplied computation cannot be called with the specified inputs. You specified 1 "
                                  "inputs: ['x:0'], but the computation needs exactly 2 arguments",
                                  "arity"));
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::replicate(kOneArg, {}, result()), StatusCode::kInvalidArgument,
                                  "Supplied computation cannot be called with the specified inputs. You specified 0 "
                                  "inputs: [], but the computation needs exactly 1 argument",
                                  "arity with inputs=None"));
  return expect_error(rt::tpu::replicate(kOneArg, rt::Span<const ReplicaArgs>(), {}, result()),
                      StatusCode::kInvalidArgument,
                      "replicate needs at least one replica: inputs has 0 replicas (to run one replica with no inputs, "
                      "pass no inputs at all)",
                      "zero replicas");
}

Status shape_and_infeed_checks(const Inputs& in) {
  const Tensor one[] = {in.f32};
  const ReplicaArgs single[] = {ReplicaArgs(one)};
  const int64_t unknown[] = {rt::tpu::kUnknownSize};
  const MaximumShape maximum[] = {MaximumShape::of(rt::Span<const int64_t>(unknown, 1)),
                                  MaximumShape::of(rt::Span<const int64_t>(unknown, 1))};
  rt::tpu::InfeedBinding queue;
  queue.number_of_tuple_elements = 1;
  rt::tpu::ReplicateOptions options;
  options.infeed_queue = &queue;
  options.maximum_shapes = rt::Span<const MaximumShape>(maximum, 1);
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::replicate(kTwoArgs, single, options, result()), StatusCode::kInvalidArgument,
                                  "Dynamic input shapes are not supported with infeed queues", "maximum_shapes with infeed"));
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::replicate(kOneArg, single, options, result()), StatusCode::kInvalidArgument,
                                  "Supplied computation cannot be called with the specified inputs. You specified 1 "
                                  "inputs: ['Placeholder:0'] and 1 additional inputs from infeed, but the computation "
                                  "needs exactly 1 argument",
                                  "arity with infeed"));
  options.maximum_shapes = {};
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::replicate(kTwoArgs, single, options, result()), StatusCode::kUnimplemented,
                                  "replicate: the infeed binding has no dequeue function (bind an InfeedQueue's "
                                  "dequeue); this call asks for 1 infeed tuple elements per replica",
                                  "infeed binding without a dequeue function"));
  options = {};
  options.maximum_shapes = rt::Span<const MaximumShape>(maximum, 2);
  return expect_error(rt::tpu::replicate(kOneArg, single, options, result()), StatusCode::kInvalidArgument,
                      "maximum_shapes must have the structure of inputs[0]: inputs[0] has 1 inputs but maximum_shapes "
                      "has 2 entries",
                      "maximum_shapes structure");
}

Status placement_checks(const Inputs& in, unsigned cores) {
  const Tensor one[] = {in.f32};
  ReplicaArgs inputs[rt::tpu::kMaxReplicas];
  for (ReplicaArgs& args : inputs) args = ReplicaArgs(one);
  const unsigned wrong = cores == rt::tpu::kMaxReplicas ? 2 : cores + 1;  // neither 1 nor the core count
  rt::FixedString<80> expected;
  rt::format_to(expected, "'num_replicas' must be equal to 1 or {}, got {}", cores, wrong);
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::replicate(kOneArg, rt::Span<const ReplicaArgs>(inputs, wrong), {}, result()),
                                  StatusCode::kInvalidArgument, expected.view(), "num_replicas rule"));

  rt::Result<rt::tpu::Topology> topology = rt::tpu::Topology::for_cores(static_cast<int>(cores));
  if (!topology) return topology.status();
  rt::Result<rt::tpu::DeviceAssignment> one_replica = rt::tpu::DeviceAssignment::build(*topology);
  if (!one_replica) return one_replica.status();
  rt::tpu::ReplicateOptions options;
  options.device_assignment = &*one_replica;
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::replicate(kOneArg, rt::Span<const ReplicaArgs>(inputs, 2), options, result()),
                                  StatusCode::kInvalidArgument,
                                  "Length of device_assignment attribute must be equal to num_replicas (2) * "
                                  "num_cores_per_replica (1) * 4 got 4",
                                  "device assignment of another replica count"));
  if (topology->mesh_shape()[3] != 2) return Status::ok();
  const int32_t two_cores[] = {1, 1, 1, 2};
  rt::Result<rt::tpu::DeviceAssignment> model_parallel = rt::tpu::DeviceAssignment::build(*topology, two_cores);
  if (!model_parallel) return model_parallel.status();
  options.device_assignment = &*model_parallel;  // model parallelism (tests/device/model-parallel): it runs
  RT_RETURN_IF_ERROR(rt::tpu::replicate(kOneArg, rt::Span<const ReplicaArgs>(inputs, 1), options, result()));
  return expect_output_counts(result(), 1, 1, "two cores per replica");
}

Status errors_inside_computations(const Inputs& in, unsigned cores) {
  const ReplicaArgs no_inputs[rt::tpu::kMaxReplicas] = {};
  const rt::tpu::Computation nested{"nests_replicate", nests_replicate, {0}};
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::replicate(nested, rt::Span<const ReplicaArgs>(no_inputs, cores), {}, result()),
                                  StatusCode::kInvalidArgument,
                                  "TPU computations cannot be nested on op (name: \"TPUReplicateMetadata\" op: "
                                  "\"TPUReplicateMetadata\" attr { key: \"num_replicas\" value { i: 1 } })",
                                  "nested replicate"));
  if (cores < 2) return Status::ok();
  const Tensor one[] = {in.f32};
  ReplicaArgs inputs[rt::tpu::kMaxReplicas];
  for (ReplicaArgs& args : inputs) args = ReplicaArgs(one);
  const rt::tpu::Computation groups{"bad_groups", bad_groups, {1}};
  rt::FixedString<96> expected;
  rt::format_to(expected, "In kCrossReplica mode, replica groups should contain {} replicas, but found 1: [[0]]", cores);
  RT_RETURN_IF_ERROR(expect_error(rt::tpu::replicate(groups, rt::Span<const ReplicaArgs>(inputs, cores), {}, result()),
                                  StatusCode::kInvalidArgument, expected.view(), "group assignment missing a replica"));
  const rt::tpu::Computation reshaped{"reshapes_on_replica_1", reshapes_on_replica_1, {1}};
  return expect_error(rt::tpu::replicate(reshaped, rt::Span<const ReplicaArgs>(inputs, cores), {}, result()),
                      StatusCode::kInvalidArgument,
                      "core 0: collective mismatch with replica 1: all_reduce sum of 2 float32 shaped [2] here, the "
                      "same number of elements in another shape there",
                      "operands of one size in different shapes");
}

}  // namespace

Status run_error_cases(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  rt::Result<Inputs> in = make_inputs();
  if (!in) return in.status();
  RT_RETURN_IF_ERROR(input_checks(*in));
  RT_RETURN_IF_ERROR(shape_and_infeed_checks(*in));
  RT_RETURN_IF_ERROR(placement_checks(*in, cores));
  return errors_inside_computations(*in, cores);
}

}  // namespace replicate_test
