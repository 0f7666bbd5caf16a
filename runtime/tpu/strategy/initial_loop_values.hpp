// run_steps_on_dataset's initial_loop_values (contrib TPUStrategy), pure (no HAL). TF flattens them
// (a dict: in key order) and passes them to the TPU training loop, whose body returns the flattened
// last step outputs (again in key order); the loop requires the two lists of dtypes to be equal,
// else TypeError "Mismatch between input types and output types for training loop body: {} vs {}"
// with Python's lists of dtypes ("[tf.int32] vs [tf.float32]"). The body ignores the values it is
// given, so after one or more steps the outputs are the last step's whatever the initial values hold.
// Deviations (TF_BEHAVIOUR.md): with no initial values the runtime does not require the last step
// outputs to be empty (TF's TODO: "Remove initial_loop_values argument when we have a mechanism to
// infer the outputs of `fn`" is what a board does: it learns them from the steps), and the check is
// made once the steps have run, not before (TF checks when it builds the loop).
#pragma once
#include "multi_step_context.hpp"

namespace rt::tpu {

// One named value (TF's dict entry {name: value}).
struct NamedTensor {
  StringView name;
  Tensor value;
};

// OK when initial_loop_values is empty, or its dtypes in name order equal the dtypes of
// `last_step`'s outputs in name order; else INVALID_ARGUMENT with TF's TypeError text.
Status check_initial_loop_values(Span<const NamedTensor> initial_loop_values, const StepOutputTable& last_step);

}  // namespace rt::tpu
