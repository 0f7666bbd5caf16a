// replicate: TF's tpu.replicate on the board. Runs `computation` once per replica, replica r on the
// core(s) the device assignment gives it, with inputs[r] as its arguments, and returns every replica's
// outputs. A replica spanning several cores (computation_shape with more than one core: model
// parallelism) runs the computation on each of its logical cores at once (SPMD; logical_core() and
// num_logical_cores() tell them apart, logical_devices_context.hpp has their collectives and
// spmd_tensor.hpp the sharding of tensors over them); its outputs are those of its logical core 0.
// Called by the program on core 0 (run_program); blocks until every replica is done.
//
// Checks, in TF's order, with TF's texts (TF_BEHAVIOUR.md sections 1 and 5):
//   - called inside a replicated computation: "TPU computations cannot be nested on op (...)"; the
//     op is the first one an inner replicate creates, its TPUReplicateMetadata node, printed on one
//     line: name: "TPUReplicateMetadata" op: "TPUReplicateMetadata" attr { key: "num_replicas" value { i: N } };
//   - replica count (no inputs = one replica with zero inputs; an empty inputs list = zero replicas,
//     an error), input counts, dtypes and the computation's arity (replicate_inputs.hpp);
//   - maximum_shapes with an infeed queue: "Dynamic input shapes are not supported with infeed queues";
//     maximum_shapes' structure and the padding rules (dynamic_padding.hpp);
//   - without a device assignment: every replica on one core, replica r on core r, and the replica
//     count 1 or the core count: "'num_replicas' must be equal to 1 or {N}, got {n}"; with one, its
//     replica count must match (TF's rewrite-pass text "Length of device_assignment attribute must be
//     equal to num_replicas (..) * num_cores_per_replica (..) * 4 got .."), its cores must exist on
//     the board (pod_placement.hpp).
// Infeed: with options.infeed_queue the queue's tuple elements follow the regular inputs (and count
// for the arity); a queue without a dequeue function fails with "not implemented yet" after the checks,
// and so does an infeed queue with model parallelism.
// Errors of the replicas: a replica (or logical core) that does not finish within options.timeout_ns
// is a DEADLINE_EXCEEDED naming its core and replica. When a replica fails, the peers waiting for it
// in a collective stop with CANCELLED (runtime/collectives/cancellation.hpp). The Status returned is
// the lowest failing replica's, as the replica returned it (a computation's error text is kept),
// preferring any other error to a timeout and a timeout to a cancellation: the cause is reported,
// not the consequences.
#pragma once
#include "callable_computation.hpp"
#include "callable_name.hpp"
#include "computation.hpp"
#include "dynamic_padding.hpp"
#include "runtime/tpu/infeed/infeed_hook.hpp"
#include "xla_options.hpp"
#include "runtime/tpu/mesh/device_assignment.hpp"
#include "hal/support/initializer_list.hpp"
#include "runtime/sync/wait.hpp"

namespace rt::tpu {

inline constexpr uint64_t kDefaultReplicaTimeoutNs = 60000 * hal::kNanosPerMilli;

struct ReplicateOptions {
  const DeviceAssignment* device_assignment = nullptr;  // null: TF's default placement (see above)
  Span<const MaximumShape> maximum_shapes;              // empty: None
  PaddingSpec padding_spec = PaddingSpec::kAuto;
  const InfeedBinding* infeed_queue = nullptr;
  Span<const StringView> input_names;                   // inputs[0]'s names, for error texts
  // Bound on waiting for a core: to be ready for its launch, and for its replica to complete
  // (counted once core 0 has run its own replica, if it has one).
  uint64_t timeout_ns = kDefaultReplicaTimeoutNs;
  uint64_t collective_timeout_ns = kDefaultWaitTimeoutNs;
  // TF's xla_options (xla_options.hpp): SPMD partitioning and the dynamic padder, both on by default;
  // use_spmd_for_xla_partitioning=False with several cores per replica is UNIMPLEMENTED.
  XLAOptions xla_options;
  // TF's `name` ("(Deprecated) Does nothing."): accepted and unused, as in TF.
  StringView name;
};

// Per replica, the computation's outputs (an empty ReplicaOutputs for a computation returning
// nothing, one element for a single value), plus what dynamic padding decided.
struct ReplicateResult {
  unsigned num_replicas = 0;
  ReplicaOutputs replicas[kMaxReplicas];
  PaddingPlan padding;

  const ReplicaOutputs& operator[](unsigned replica) const { return replicas[replica]; }
};

// inputs[replica][input]. The result is caller storage (it is large: keep it static or in an arena).
Status replicate(const Computation& computation, Span<const ReplicaArgs> inputs, const ReplicateOptions& options,
                 ReplicateResult& result);
// TF's inputs=None: one replica with zero inputs.
Status replicate(const Computation& computation, const ReplicateOptions& options, ReplicateResult& result);

// What the value-returning replicate gives back: every replica's outputs, kept in pod memory (the
// calling core's arena; a PodMemoryScope around the calls gives it back), not in caller storage.
class Replicated {
 public:
  explicit Replicated(const ReplicateResult* result) : result_(result) {}
  unsigned num_replicas() const { return result_->num_replicas; }
  const ReplicaOutputs& operator[](unsigned replica) const { return (*result_)[replica]; }
  const ReplicateResult& result() const { return *result_; }
  // Replica `replica`'s outputs as the structure S the computation returns (a struct of its
  // results): tf.nest's pack_sequence_as text if S holds another number of tensors.
  template <class S>
  Result<S> outputs_as(unsigned replica) const {
    return nest::pack_sequence_as<S>((*result_)[replica].span());
  }

 private:
  const ReplicateResult* result_;
};

// tpu.replicate(computation, inputs) returning its outputs:
//   auto computation = [](ReplicaContext& replica, const Tensor& x) -> Result<Tensor> { ... };
//   Replicated output = RT_TRY(replicate(computation, {{x}, {y}}));   // output[1][0]: replica 1's value
// A computation returning a struct S: output.outputs_as<S>(r) is replica r's S.
// `computation` is a Computation or any callable (callable_computation.hpp); inputs[replica][input].
Result<Replicated> replicate(const Computation& computation, Span<const ReplicaArgs> inputs,
                             const ReplicateOptions& options = {});

template <class F>
Result<Replicated> replicate(const F& computation, Span<const ReplicaArgs> inputs, const ReplicateOptions& options = {}) {
  return replicate(computation_of(callable_name<F>("computation"), computation), inputs, options);
}

template <class F>
Result<Replicated> replicate(const F& computation, std::initializer_list<std::initializer_list<Tensor>> inputs,
                             const ReplicateOptions& options = {}) {
  if (inputs.size() > kMaxReplicas)
    return Status::error(StatusCode::kInvalidArgument, "replicate: {} replicas asked for, at most {} (kMaxPodDevices)",
                         inputs.size(), kMaxReplicas);
  ReplicaArgs rows[kMaxReplicas];
  size_t count = 0;
  for (const std::initializer_list<Tensor>& row : inputs) rows[count++] = ReplicaArgs(row.begin(), row.size());
  return replicate(computation, Span<const ReplicaArgs>(rows, count), options);
}

// `count` tensors in pod memory, for replicate's flattened structured inputs.
Result<Tensor*> allocate_replica_inputs(size_t count);

// tpu.replicate with structured inputs: inputs[r] is replica r's arguments as one structure whose
// leaves, in flatten order, are the computation's arguments' leaves (a struct of the arguments, or
// the structure of the computation's one argument):
//   struct Example { Tensor x; Pair pair; };            // computation(ReplicaContext&, const Tensor& x, const Pair& pair)
//   Replicated out = RT_TRY(replicate(computation, {Example{x0, {a0, b0}}, Example{x1, {a1, b1}}}));
// options.maximum_shapes, if given, holds one entry per leaf of inputs[0], in flatten order.
template <class F, class Row>
  requires(nest::is_structure_v<Row> && !nest::is_leaf_v<Row>)
Result<Replicated> replicate(const F& computation, Span<const Row> inputs, const ReplicateOptions& options = {}) {
  constexpr size_t kLeaves = nest::leaf_count_v<Row>;
  if (inputs.size() > kMaxReplicas)
    return Status::error(StatusCode::kInvalidArgument, "replicate: {} replicas asked for, at most {} (kMaxPodDevices)",
                         inputs.size(), kMaxReplicas);
  Tensor* table = RT_TRY(allocate_replica_inputs(inputs.size() * kLeaves));
  ReplicaArgs rows[kMaxReplicas];
  for (size_t r = 0; r < inputs.size(); ++r) {
    Tensor* row = table + r * kLeaves;
    size_t leaf = 0;
    nest::for_each_leaf(inputs[r], [&](const Tensor& value) { row[leaf++] = value; });
    rows[r] = ReplicaArgs(row, kLeaves);
  }
  return replicate(computation, Span<const ReplicaArgs>(rows, inputs.size()), options);
}

template <class F, class Row>
  requires(nest::is_structure_v<Row> && !nest::is_leaf_v<Row>)
Result<Replicated> replicate(const F& computation, std::initializer_list<Row> inputs, const ReplicateOptions& options = {}) {
  return replicate(computation, Span<const Row>(inputs.begin(), inputs.size()), options);
}

// TF's inputs=None: one replica with zero inputs.
template <class F>
Result<Replicated> replicate(const F& computation, const ReplicateOptions& options = {}) {
  const ReplicaArgs none;
  return replicate(computation, Span<const ReplicaArgs>(&none, 1), options);
}

}  // namespace rt::tpu
