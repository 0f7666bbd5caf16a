// replicate's xla_options (xla_options.hpp).
#include "xla_options.hpp"

namespace rt::tpu {

Status check_xla_options(const XLAOptions& options, unsigned cores_per_replica) {
  if (options.use_spmd_for_xla_partitioning || cores_per_replica == 1) return Status::ok();
  return Status::error(StatusCode::kUnimplemented,
                       "replicate: xla_options.use_spmd_for_xla_partitioning=False asks for XLA's MPMD partitioner, "
                       "which the runtime does not have: each replica's {} logical cores all run the computation "
                       "(SPMD partitioning, use_spmd_for_xla_partitioning=True)",
                       cores_per_replica);
}

}  // namespace rt::tpu
