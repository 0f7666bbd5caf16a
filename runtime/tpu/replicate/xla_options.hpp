// replicate's xla_options (TF's tf.tpu.XLAOptions), pure. The board has no XLA; what each field asks
// for, and what the runtime does with it (TF_BEHAVIOUR.md section 1):
//   - use_spmd_for_xla_partitioning (TF's default true): with a replica spanning several cores, every
//     logical core runs the whole computation on its part of the tensors (SPMD), which is how the
//     runtime always partitions. false asks for XLA's MPMD partitioner (each logical core runs only the
//     ops placed on it), which the runtime does not have: UNIMPLEMENTED, from check_xla_options. With
//     one core per replica nothing is partitioned and false changes nothing, as in TF.
//   - enable_xla_dynamic_padder (TF's default true): the ops read the real sizes of inputs that
//     maximum_shapes padded (section 1). false makes the padded inputs plain tensors of the padded
//     size (their real sizes are not recorded), so the computation sees the zeros as data, as XLA
//     does when its dynamic padder is off.
#pragma once
#include "hal/support/status.hpp"

namespace rt::tpu {

struct XLAOptions {
  bool use_spmd_for_xla_partitioning = true;
  bool enable_xla_dynamic_padder = true;
};

// OK unless `options` asks for what the runtime cannot do with replicas of `cores_per_replica` cores.
Status check_xla_options(const XLAOptions& options, unsigned cores_per_replica);

}  // namespace rt::tpu
