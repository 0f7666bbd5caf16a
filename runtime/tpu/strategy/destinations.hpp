// Where TPUStrategy's cross-replica results go (TF's `destinations` of reduce_to, batch_reduce_to and
// broadcast_to), how per-replica updates combine (VariableAggregation), and batch_reduce_to's pairs.
#pragma once
#include "distributed_value.hpp"

namespace rt::tpu {

// Where reduce_to and batch_reduce_to put a result (TF's `destinations`): the host (the program's
// memory: a plain value), the devices of a distributed value or mirrored variable's copies (every
// replica's core: a Mirrored value with a copy of the result on each; a plain value's device is the
// host), or one device named as TF names it (device_destination.hpp: a TPU core of this board gets a plain
// copy in its arena, the host CPU is the host).
class Destinations {
 public:
  enum class Kind : uint8_t { kHost, kReplicas, kDevice };
  static Destinations host() { return Destinations(Kind::kHost); }
  static Destinations devices_of(const DistributedValue& value) {
    return Destinations(value.is_distributed() ? Kind::kReplicas : Kind::kHost);
  }
  // One device: "/job:localhost/replica:0/task:0/device:TPU:1", "/device:TPU:1", ".../device:CPU:0".
  static Destinations device(StringView name) {
    Destinations destinations(Kind::kDevice);
    destinations.device_ = name;
    return destinations;
  }
  Kind kind() const { return kind_; }
  bool replicas() const { return kind_ == Kind::kReplicas; }
  StringView device_name() const { return device_; }

 private:
  explicit Destinations(Kind kind) : kind_(kind) {}
  Kind kind_;
  StringView device_;  // kDevice: the name given (it must outlive the call)
};

// How a variable's per-replica updates combine (tf.VariableAggregation; contrib's reduce and
// batch_reduce take one, with ONLY_FIRST_TOWER as contrib's name for kOnlyFirstReplica).
enum class VariableAggregation : uint8_t { kNone, kSum, kMean, kOnlyFirstReplica };

// One (value, destinations) pair of batch_reduce_to.
struct ValueDestination {
  DistributedValue value;
  Destinations destinations = Destinations::host();
};

}  // namespace rt::tpu
