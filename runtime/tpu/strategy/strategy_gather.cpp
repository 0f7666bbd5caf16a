// Strategy.gather's concatenation of the replicas' values (strategy_gather.hpp).
#include "strategy_gather.hpp"

#include "runtime/ops/arena_ops.hpp"

namespace rt::tpu {

Result<Tensor> gather_replicas(const DistributedValue& value, int64_t axis, Arena& arena) {
  if (value.kind() == ValueKind::kPlain) return value.component(0);
  const Span<const Tensor> components = value.local_results();
  if (components[0].shape.rank == 0) return invalid_argument("Can't concatenate scalars (use tf.stack instead)");
  RT_RETURN_IF_ERROR(check_same_component_shapes(
      components, "gather", "on TPU every replica's value must have the same shape and dtype"));
  return concat(arena, components, axis);
}

}  // namespace rt::tpu
