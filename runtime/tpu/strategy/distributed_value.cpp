// DistributedValue construction (plain values, PerReplica, Mirrored, TF's regroup) and the check that
// its components agree in shape and dtype.
#include "distributed_value.hpp"

namespace rt::tpu {

DistributedValue& DistributedValue::operator=(const DistributedValue& other) {
  kind_ = other.kind_;
  count_ = other.count_;
  for (unsigned r = 0; r < count_; ++r) values_.at[r] = other.values_.at[r];
  return *this;
}

DistributedValue DistributedValue::plain(const Tensor& value) {
  DistributedValue result;
  result.values_.at[0] = value;
  return result;
}

Result<DistributedValue> DistributedValue::distributed(ValueKind kind, Span<const Tensor> components) {
  if (components.empty() || components.size() > kMaxReplicas)
    return invalid_argument("a {} value needs 1 to {} components (one per replica; kMaxPodDevices), got {}", value_kind_name(kind),
                            kMaxReplicas, components.size());
  DistributedValue result;
  result.kind_ = kind;
  result.count_ = static_cast<unsigned>(components.size());
  for (unsigned r = 0; r < result.count_; ++r) result.values_.at[r] = components[r];
  return result;
}

DistributedValue DistributedValue::per_replica_of(unsigned count) {
  DistributedValue result;
  result.kind_ = ValueKind::kPerReplica;
  result.count_ = count < 1 ? 1 : (count > kMaxReplicas ? kMaxReplicas : count);
  for (unsigned r = 0; r < result.count_; ++r) result.values_.at[r] = Tensor();
  return result;
}

Result<DistributedValue> DistributedValue::per_replica(Span<const Tensor> components) {
  return distributed(ValueKind::kPerReplica, components);
}

Result<DistributedValue> DistributedValue::mirrored(Span<const Tensor> components) {
  return distributed(ValueKind::kMirrored, components);
}

DistributedValue DistributedValue::regroup(Span<const Tensor> components) {
  if (components.size() == 1) return plain(components[0]);
  Result<DistributedValue> value = per_replica(components);
  return value ? *value : DistributedValue();
}

Status check_same_component_shapes(Span<const Tensor> components, StringView operation, StringView rule) {
  for (unsigned r = 1; r < components.size(); ++r)
    if (!(components[r].shape == components[0].shape) || components[r].dtype != components[0].dtype)
      return invalid_argument("{}: replica {} has a {} value of shape {}, replica 0 a {} value of shape {}; {}",
                              operation, r, dtype_name(components[r].dtype), components[r].shape.sizes(),
                              dtype_name(components[0].dtype), components[0].shape.sizes(), rule);
  return Status::ok();
}

Result<ValueRefList> value_refs(Span<const DistributedValue> values, StringView call) {
  if (values.size() > kMaxReplicaInputs)
    return invalid_argument("{} at most {} arguments, got {}", call, kMaxReplicaInputs, values.size());
  ValueRefList list;
  for (const DistributedValue& value : values) list.refs[list.count++] = value;
  return list;
}

const char* value_kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::kPlain: return "Tensor";
    case ValueKind::kPerReplica: return "PerReplica";
    case ValueKind::kMirrored: return "Mirrored";
  }
  return "unknown";
}

}  // namespace rt::tpu
