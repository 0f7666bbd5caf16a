// TPUStrategy.gather's arithmetic, pure (no HAL): a PerReplica value's components concatenated along
// `axis` in replica order (TF's Strategy.gather on TPU: concat of the components, copied to the
// host); a plain value comes back as it is. Every component must have the same shape (TF requires it
// on TPU). Rank-0 components cannot be concatenated: "Can't concatenate scalars (use tf.stack
// instead)"; an axis outside [-rank, rank) gets ConcatOp's text.
#pragma once
#include "distributed_value.hpp"
#include "runtime/tensor/arena.hpp"

namespace rt::tpu {

Result<Tensor> gather_replicas(const DistributedValue& value, int64_t axis, Arena& arena);

}  // namespace rt::tpu
