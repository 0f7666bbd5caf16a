// replicate's input checks with TF's error texts.
#include "replicate_inputs.hpp"

namespace rt::tpu {
namespace {

bool same_dtypes(ReplicaArgs a, ReplicaArgs b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].dtype != b[i].dtype) return false;
  return true;
}

Status check_replica(Span<const ReplicaArgs> inputs, unsigned replica) {
  const ReplicaArgs first = inputs[0];
  const ReplicaArgs mine = inputs[replica];
  if (mine.size() != first.size())
    return invalid_argument("Replicas must have the same number of inputs. Replica 0 had {} inputs, replica {} had {} "
                            "inputs.",
                            first.size(), replica, mine.size());
  if (!same_dtypes(first, mine))
    return invalid_argument("Replicas must have matching input types. Replica 0 had input types {}, replica {} had "
                            "input types {}",
                            dtypes_text(first), replica, dtypes_text(mine));
  return Status::ok();
}

Status check_arity(const Computation& computation, unsigned num_inputs, bool has_infeed, unsigned infeed_elements,
                   Span<const StringView> input_names) {
  ArityText needs;
  if (!argument_count_error(computation.signature, num_inputs + infeed_elements, needs)) return Status::ok();
  const NamesText names = input_names_text(num_inputs, input_names);
  if (!has_infeed)
    return invalid_argument("Supplied computation cannot be called with the specified inputs. You specified {} inputs: "
                            "{}, but the computation needs {}",
                            num_inputs, names, needs);
  return invalid_argument("Supplied computation cannot be called with the specified inputs. You specified {} inputs: "
                          "{} and {} additional inputs from infeed, but the computation needs {}",
                          num_inputs, names, infeed_elements, needs);
}

}  // namespace

NamesText input_names_text(unsigned num_inputs, Span<const StringView> names) {
  NamesText text;
  text.append('[');
  for (unsigned i = 0; i < num_inputs; ++i) {
    if (i != 0) text.append(", ");
    if (i < names.size() && !names[i].empty()) format_to(text, "'{}'", names[i]);
    else if (i == 0) text.append("'Placeholder:0'");
    else format_to(text, "'Placeholder_{}:0'", i);
  }
  text.append(']');
  return text;
}

DTypesText dtypes_text(ReplicaArgs args) {
  DTypesText text;
  text.append('[');
  for (size_t i = 0; i < args.size(); ++i) format_to(text, "{}tf.{}", i == 0 ? "" : ", ", dtype_name(args[i].dtype));
  text.append(']');
  return text;
}

Status validate_replicate_inputs(const Computation& computation, Span<const ReplicaArgs> inputs, bool has_infeed,
                                 unsigned infeed_elements, Span<const StringView> input_names) {
  if (!computation.fn) return invalid_argument("replicate: the computation has no function");
  if (inputs.empty())
    return invalid_argument("replicate needs at least one replica: inputs has 0 replicas (to run one replica with no "
                            "inputs, pass no inputs at all)");
  if (inputs.size() > kMaxReplicas)
    return invalid_argument("replicate supports at most {} replicas (kMaxPodDevices); inputs has {}", kMaxReplicas,
                            inputs.size());
  for (unsigned r = 1; r < inputs.size(); ++r) RT_RETURN_IF_ERROR(check_replica(inputs, r));
  const unsigned num_inputs = static_cast<unsigned>(inputs[0].size());
  RT_RETURN_IF_ERROR(check_arity(computation, num_inputs, has_infeed, infeed_elements, input_names));
  if (num_inputs + infeed_elements > kMaxReplicaInputs)
    return invalid_argument("replicate supports at most {} arguments per replica; got {} inputs and {} from infeed",
                            kMaxReplicaInputs, num_inputs, infeed_elements);
  return Status::ok();
}

}  // namespace rt::tpu
