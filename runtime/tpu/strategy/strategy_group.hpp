// contrib's strategy.group(value, name), pure (no HAL). TF returns tf.group of the value's
// components: an op whose only use is to make a graph run every replica's part. A board executes
// eagerly (when run or update returns, every component exists), so group has nothing to run: it
// checks that `value` is a value of a strategy with `num_replicas` replicas (a plain value, or a
// distributed value with one component per replica) and returns OK. `name` (TF's op name) is
// accepted and unused. TF_BEHAVIOUR.md section 6 says so.
#pragma once
#include "distributed_value.hpp"

namespace rt::tpu {

// OK for a plain value or a distributed one with num_replicas components; else INVALID_ARGUMENT:
// "group: a <kind> value with <n> components, but the strategy has <N> replicas".
Status check_groupable(const DistributedValue& value, unsigned num_replicas, StringView name = {});

}  // namespace rt::tpu
