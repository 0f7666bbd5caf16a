// DistributedValue: a value as TPUStrategy's cross-replica code sees it (TF's tf.distribute values):
//   - plain: one tensor, the same for every replica (a regular tensor; what run returns with one
//     replica, or an argument every replica receives as it is);
//   - per-replica (TF's PerReplica): one component per replica, replica r's is component r;
//   - mirrored (TF's Mirrored): one component per replica, kept equal (broadcast results, the
//     copies of a mirrored variable).
// Components are views (tensors live in the replicas' arenas or the program's memory).
// regroup() is TF's distribute_utils.regroup for one value: a single component is returned as a
// plain value, more become a PerReplica.
#pragma once
#include "runtime/tpu/replicate/computation.hpp"

namespace rt::tpu {

enum class ValueKind : uint8_t { kPlain, kPerReplica, kMirrored };

class DistributedValue {
 public:
  DistributedValue() { values_.at[0] = Tensor(); }  // a plain value holding an empty float32 scalar view
  // Copies the components in use only (see Components).
  DistributedValue(const DistributedValue& other) { *this = other; }
  DistributedValue& operator=(const DistributedValue& other);
  static DistributedValue plain(const Tensor& value);
  // 1..kMaxReplicas components; an error otherwise.
  static Result<DistributedValue> per_replica(Span<const Tensor> components);
  static Result<DistributedValue> mirrored(Span<const Tensor> components);
  // A PerReplica value of `count` (1..kMaxReplicas) empty components, filled with set_component.
  static DistributedValue per_replica_of(unsigned count);
  void set_component(unsigned replica, const Tensor& value) { values_.at[replica] = value; }
  // One component: plain; more: per-replica. components must hold 1..kMaxReplicas tensors.
  static DistributedValue regroup(Span<const Tensor> components);

  ValueKind kind() const { return kind_; }
  bool is_distributed() const { return kind_ != ValueKind::kPlain; }
  // Components of a distributed value; 1 for a plain one.
  unsigned num_components() const { return count_; }
  // Replica `replica`'s value: its component (replica < num_components()), or the plain value.
  const Tensor& component(unsigned replica) const { return kind_ == ValueKind::kPlain ? values_.at[0] : values_.at[replica]; }
  // TF's experimental_local_results: the components, or the plain value alone.
  Span<const Tensor> local_results() const { return Span<const Tensor>(values_.at, count_); }

 private:
  static Result<DistributedValue> distributed(ValueKind kind, Span<const Tensor> components);

  // Room for one component per replica of the pod (kMaxReplicas x 168 bytes: 10.5 KiB at 64), left
  // unconstructed: only the first count_ are ever written or read, so making, copying and returning
  // a value costs its own components, not the pod's table (a one-board value stays as cheap as when
  // the table held 16). Tensor is trivially copyable, so assigning an entry begins its lifetime.
  union Components {
    Components() {}
    Tensor at[kMaxReplicas];
  };
  static_assert(__is_trivially_copyable(Tensor), "components are assigned into raw storage");

  ValueKind kind_ = ValueKind::kPlain;
  unsigned count_ = 1;
  Components values_;
};

// A light reference to one argument of a strategy call: a distributed value (replica r gets its
// component r) or a plain tensor (every replica gets it). Refers to, never copies: the value must
// outlive the call (run() is synchronous).
class ValueRef {
 public:
  ValueRef() = default;
  ValueRef(const DistributedValue& value) : value_(&value) {}  // NOLINT: a reference converts implicitly
  ValueRef(const Tensor& plain) : plain_(&plain) {}             // NOLINT
  bool is_distributed() const { return value_ != nullptr && value_->is_distributed(); }
  ValueKind kind() const { return value_ ? value_->kind() : ValueKind::kPlain; }
  unsigned num_components() const { return value_ ? value_->num_components() : 1; }
  const Tensor& component(unsigned replica) const { return value_ ? value_->component(replica) : *plain_; }

 private:
  const DistributedValue* value_ = nullptr;
  const Tensor* plain_ = nullptr;
};

// A span of distributed values as refs, for the strategy's calls: at most kMaxReplicaInputs of them,
// else INVALID_ARGUMENT "<call> at most {} arguments, got {}".
struct ValueRefList {
  ValueRef refs[kMaxReplicaInputs];
  size_t count = 0;
  Span<const ValueRef> span() const { return Span<const ValueRef>(refs, count); }
};
Result<ValueRefList> value_refs(Span<const DistributedValue> values, StringView call);

// "PerReplica", "Mirrored" or "Tensor", for messages.
const char* value_kind_name(ValueKind kind);

// OK when every component has component 0's shape and dtype; else INVALID_ARGUMENT naming the first
// replica that differs: "<operation>: replica r has a <dtype> value of shape [..], replica 0 a ...;
// <rule>" (rule: why the operation needs them equal).
Status check_same_component_shapes(Span<const Tensor> components, StringView operation, StringView rule);

// What experimental_distribute_values_from_function's function is told (TF's ValueContext).
struct ValueContext {
  unsigned replica_id_in_sync_group = 0;
  unsigned num_replicas_in_sync = 1;
};

}  // namespace rt::tpu
