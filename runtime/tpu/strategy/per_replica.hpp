// PerReplica<S>: a structure S whose leaves are distributed values (TF's nest of PerReplica values):
// what strategy.run returns for a function returning a structure, what
// experimental_distribute_values_from_function makes of a function returning one, and an argument
// run() hands out replica by replica.
//
//   struct Step { Tensor loss; Params grads; };
//   PerReplica<Step> out = RT_TRY(strategy.run(step, batches));
//   Step sum = RT_TRY(strategy.reduce(ReduceOp::kSum, out));      // leaf by leaf, as TF's reduce of a nest
//   Step first = out.local(0);                                     // replica 0's structure
//   const DistributedValue& losses = out.field(&Step::loss).value();
//
// A view: the leaves live in pod memory (the calling core's arena; a PodMemoryScope around the calls
// gives them back) or the caller's storage.
#pragma once
#include "distributed_value.hpp"
#include "runtime/tpu/nest/nest.hpp"

namespace rt::tpu {

template <class S>
class PerReplica {
 public:
  static constexpr size_t kLeaves = nest::leaf_count_v<S>;

  PerReplica() = default;
  // `leaves` holds kLeaves values, in S's flatten order.
  explicit PerReplica(const DistributedValue* leaves) : leaves_(leaves) {}

  Span<const DistributedValue> leaves() const { return Span<const DistributedValue>(leaves_, kLeaves); }
  const DistributedValue& leaf(size_t index) const { return leaves_[index]; }
  // The value itself, for a PerReplica<Tensor>.
  const DistributedValue& value() const
    requires nest::is_leaf_v<S>
  {
    return leaves_[0];
  }
  // Replica `replica`'s structure: each leaf's component (a plain leaf as it is).
  S local(unsigned replica) const {
    return nest::build<S>([&](size_t index) { return leaves_[index].component(replica); });
  }
  // One field of S as its own PerReplica: out.field(&Step::loss).
  template <class M>
  PerReplica<M> field(M S::*member) const {
    static_assert(nest::leaf_count_v<M> > 0, "PerReplica::field: the field holds no tensor");
    const S probe{};
    const auto addresses = nest::leaf_addresses(probe);
    const Tensor* first = nest::leaf_addresses(probe.*member)[0];
    size_t index = 0;
    while (addresses[index] != first) ++index;
    return PerReplica<M>(leaves_ + index);
  }

 private:
  const DistributedValue* leaves_ = nullptr;
};

template <class T> struct IsPerReplica : false_type {};
template <class S> struct IsPerReplica<PerReplica<S>> : true_type {
  using Structure = S;
};
template <class T> inline constexpr bool is_per_replica_v = IsPerReplica<remove_cvref_t<T>>::value;

// `count` default (plain, empty) distributed values in pod memory, for a PerReplica's leaves.
Result<DistributedValue*> allocate_distributed_values(size_t count);

}  // namespace rt::tpu
