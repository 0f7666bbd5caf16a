// Strategy.gather's concatenation of the replicas' values (strategy_gather.hpp).
#include "strategy_gather.hpp"

#include "runtime/ops/arena_ops.hpp"

namespace rt::tpu {

Result<Tensor> gather_replicas(const DistributedValue& value, int64_t axis, Arena& arena) {
  if (value.kind() == ValueKind::kPlain) return value.component(0);
  const Span<const Tensor> components = value.local_results();
  if (components[0].shape.rank == 0) return invalid_argument("Can't concatenate scalars (use tf.stack instead)");
  for (unsigned r = 1; r < components.size(); ++r)
    if (!(components[r].shape == components[0].shape) || components[r].dtype != components[0].dtype)
      return invalid_argument("gather: replica {} has a {} value of shape {}, replica 0 a {} value of shape {}; "
                              "on TPU every replica's value must have the same shape and dtype", r,
                              dtype_name(components[r].dtype), components[r].shape.sizes(),
                              dtype_name(components[0].dtype), components[0].shape.sizes());
  return concat(arena, components, axis);
}

}  // namespace rt::tpu
