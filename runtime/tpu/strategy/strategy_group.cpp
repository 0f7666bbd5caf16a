// strategy.group's check (strategy_group.hpp).
#include "strategy_group.hpp"

namespace rt::tpu {

Status check_groupable(const DistributedValue& value, unsigned num_replicas, StringView name) {
  (void)name;  // TF's op name: no op is made on a board
  if (!value.is_distributed() || value.num_components() == num_replicas) return Status::ok();
  return invalid_argument("group: a {} value with {} components, but the strategy has {} replicas",
                          value_kind_name(value.kind()), value.num_components(), num_replicas);
}

}  // namespace rt::tpu
