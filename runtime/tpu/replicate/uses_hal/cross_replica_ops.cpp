// Free collectives: the current replica's context, or a one-replica context outside replicate.
#include "runtime/tpu/replicate/cross_replica_ops.hpp"

#include "runtime/tpu/replicate/current_replica.hpp"
#include "hal/core.hpp"

namespace rt::tpu {
namespace {

template <class Operation>
auto with_replica(Operation operation) {
  if (ReplicaContext* context = current_replica_context()) return operation(*context);
  ReplicaContext single = ReplicaContext::single(hal::core_id());
  return operation(single);
}

}  // namespace

Result<Tensor> cross_replica_sum(const Tensor& x, const GroupAssignment& groups) {
  return with_replica([&](ReplicaContext& replica) { return replica.cross_replica_sum(x, groups); });
}

Result<Tensor> all_reduce(ReduceOp op, const Tensor& x, const GroupAssignment& groups) {
  return with_replica([&](ReplicaContext& replica) { return replica.all_reduce(op, x, groups); });
}

Result<Tensor> all_gather(const Tensor& x, const GroupAssignment& groups) {
  return with_replica([&](ReplicaContext& replica) { return replica.all_gather(x, groups); });
}

Result<Tensor> all_to_all(const Tensor& x, int64_t concat_dimension, int64_t split_dimension, int64_t split_count,
                          const GroupAssignment& groups) {
  return with_replica([&](ReplicaContext& replica) {
    return replica.all_to_all(x, concat_dimension, split_dimension, split_count, groups);
  });
}

Result<Tensor> collective_permute(const Tensor& x, Span<const int64_t> source_target_pairs) {
  return with_replica([&](ReplicaContext& replica) { return replica.collective_permute(x, source_target_pairs); });
}

Result<Tensor> broadcast(const Tensor& x, unsigned source_replica, const GroupAssignment& groups) {
  return with_replica([&](ReplicaContext& replica) { return replica.broadcast(x, source_replica, groups); });
}

Status barrier(const GroupAssignment& groups) {
  return with_replica([&](ReplicaContext& replica) { return replica.barrier(groups); });
}

unsigned replica_id() {
  ReplicaContext* context = current_replica_context();
  return context != nullptr ? context->replica_id() : 0;
}

unsigned num_replicas() {
  ReplicaContext* context = current_replica_context();
  return context != nullptr ? context->num_replicas() : 1;
}

}  // namespace rt::tpu
