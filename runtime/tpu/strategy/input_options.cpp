// InputOptions' checks (input_options.hpp).
#include "input_options.hpp"

namespace rt::tpu {

const char* input_replication_mode_repr(InputReplicationMode mode) {
  return mode == InputReplicationMode::kPerWorker ? "<InputReplicationMode.PER_WORKER: 'PER_WORKER'>"
                                                  : "<InputReplicationMode.PER_REPLICA: 'PER_REPLICA'>";
}

Status check_distribute_dataset_options(const InputOptions& options) {
  if (options.experimental_replication_mode == InputReplicationMode::kPerReplica)
    return Status::error(StatusCode::kUnimplemented,
                         "InputReplicationMode.PER_REPLICA is only supported in "
                         "`experimental_distribute_datasets_from_function`.");
  return Status::ok();
}

Status check_datasets_from_function_options(const InputOptions& options) {
  if (options.experimental_replication_mode == InputReplicationMode::kPerReplica)
    return Status::error(StatusCode::kUnimplemented,
                         "InputReplicationMode.PER_REPLICA is only supported in  "
                         "`experimental_distribute_datasets_from_function` of tf.distribute.MirroredStrategy");
  if (options.experimental_place_dataset_on_device)
    return invalid_argument("When `experimental_place_dataset_on_device` is set for dataset placement, you must "
                            "also specify `PER_REPLICA` for the replication mode");
  return Status::ok();
}

Status check_input_fn_replication_mode(InputReplicationMode mode) {
  if (mode == InputReplicationMode::kPerWorker) return Status::ok();
  return invalid_argument("Input replication mode not supported: {}", input_replication_mode_repr(mode));
}

}  // namespace rt::tpu
