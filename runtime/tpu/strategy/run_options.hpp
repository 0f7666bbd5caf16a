// tf.distribute.RunOptions (r2.4) for strategy.run, pure. What each field does on a board
// (TF_BEHAVIOUR.md section 6, "Options"):
//   - experimental_enable_dynamic_batch_size (TF's default true): TPUStrategy.run lets replicas' inputs
//     differ in size (TF pads them to a common shape and its dynamic padder keeps the real sizes; a
//     board runs each replica on its own tensors, which gives the same values). false is TF's "only
//     static shape inputs are allowed": every distributed argument's components must then have one
//     shape (and dtype), else INVALID_ARGUMENT naming the argument and replica (the runtime's text:
//     TF fails when XLA compiles the program).
//   - experimental_bucketizing_dynamic_shape (TF's default false): TF rounds padded sizes up to powers
//     of two so that XLA compiles fewer programs, "which should not have impact on correctness". A
//     board compiles nothing: no meaning, both values accepted, the values computed are the same.
#pragma once
#include "distributed_value.hpp"

namespace rt::tpu {

struct RunOptions {
  bool experimental_enable_dynamic_batch_size = true;
  bool experimental_bucketizing_dynamic_shape = false;
};

// OK when run may take `args` under `options`.
Status check_run_options(const RunOptions& options, Span<const ValueRef> args);

}  // namespace rt::tpu
