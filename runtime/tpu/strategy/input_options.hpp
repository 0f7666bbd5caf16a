// tf.distribute.InputOptions (r2.4) for experimental_distribute_dataset and
// distribute_datasets_from_function, and InputReplicationMode (also make_input_fn_iterator's
// replication_mode), pure. What each field does on a board (TF_BEHAVIOUR.md section 6, "Options"):
//   - experimental_replication_mode: PER_WORKER (the default) is the only mode TPUStrategy has;
//     PER_REPLICA is TF's NotImplementedError (UNIMPLEMENTED) with TF's texts, one per method:
//       "InputReplicationMode.PER_REPLICA is only supported in `experimental_distribute_datasets_from_function`."
//       "InputReplicationMode.PER_REPLICA is only supported in  `experimental_distribute_datasets_from_function` of tf.distribute.MirroredStrategy"
//     (the second with TF's two spaces);
//   - experimental_place_dataset_on_device: with PER_WORKER, distribute_datasets_from_function refuses
//     it with TF's ValueError text (below); experimental_distribute_dataset accepts it, as TF does;
//   - experimental_prefetch_to_device: no meaning on a board. TF prefetches elements into the TPU's
//     memory (true) or the host's (false); a board's replicas read their elements where the dataset
//     holds them (board memory the cores share), so both values are accepted and change nothing.
#pragma once
#include "hal/support/status.hpp"

namespace rt::tpu {

enum class InputReplicationMode : uint8_t { kPerWorker, kPerReplica };

struct InputOptions {
  bool experimental_prefetch_to_device = true;
  InputReplicationMode experimental_replication_mode = InputReplicationMode::kPerWorker;
  bool experimental_place_dataset_on_device = false;
};

// Python's repr of the mode, as TF's %r prints it: "<InputReplicationMode.PER_WORKER: 'PER_WORKER'>".
const char* input_replication_mode_repr(InputReplicationMode mode);

// TPUStrategy's checks of the options, in TF's order.
Status check_distribute_dataset_options(const InputOptions& options);
Status check_datasets_from_function_options(const InputOptions& options);
// make_input_fn_iterator's: "Input replication mode not supported: <InputReplicationMode.PER_REPLICA: 'PER_REPLICA'>".
Status check_input_fn_replication_mode(InputReplicationMode mode);

}  // namespace rt::tpu
