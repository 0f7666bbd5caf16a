// The names and reduce ops of a replica's last step outputs as bytes, so that they can cross the
// boards of a pod with the values (run_steps_on_dataset: every board's MultiStepContext names every
// replica's values as that replica named them, and every board sees the same disagreement, if any):
//   count, then per output: reduced (0/1), reduce op, name length (< 256), the name's bytes.
#pragma once
#include "multi_step_context.hpp"
#include "runtime/tensor/arena.hpp"

namespace rt::tpu {

// The specs of `table` as an int8 vector (bytes) allocated in `arena`; INVALID_ARGUMENT for a name of 256
// characters or more.
Result<Tensor> encode_step_output_specs(const StepOutputTable& table, Arena& arena);

// The specs `encoded` holds (names are views into its bytes); INVALID_ARGUMENT naming `replica` for
// bytes that are not such an encoding of exactly `count` specs.
Status decode_step_output_specs(const Tensor& encoded, unsigned count, unsigned replica, LastStepOutputSpec* specs);

}  // namespace rt::tpu
