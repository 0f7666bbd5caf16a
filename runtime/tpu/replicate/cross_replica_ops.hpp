// TF's free-standing TPU collectives (tpu_ops.cross_replica_sum, all_to_all, collective_permute, ...)
// and replica_id(): inside a replicated computation they act for the calling core's current replica
// (ReplicaContext); outside one they behave as a single replica, group [[0]] (TF_BEHAVIOUR.md section 2),
// with outputs in the calling core's arena.
#pragma once
#include "replica_context.hpp"

namespace rt::tpu {

Result<Tensor> cross_replica_sum(const Tensor& x, const GroupAssignment& groups = {});
// TF's cross_replica_sum(x, group_assignment, name): `name` names the op in TF's graph; a board builds no
// graph, so it is accepted and unused (TF_BEHAVIOUR.md section 2).
inline Result<Tensor> cross_replica_sum(const Tensor& x, const GroupAssignment& groups, StringView name) {
  (void)name;
  return cross_replica_sum(x, groups);
}
Result<Tensor> all_reduce(ReduceOp op, const Tensor& x, const GroupAssignment& groups = {});
Result<Tensor> all_gather(const Tensor& x, const GroupAssignment& groups = {});
Result<Tensor> all_to_all(const Tensor& x, int64_t concat_dimension, int64_t split_dimension, int64_t split_count,
                          const GroupAssignment& groups = {});
Result<Tensor> collective_permute(const Tensor& x, Span<const int64_t> source_target_pairs);
Result<Tensor> broadcast(const Tensor& x, unsigned source_replica, const GroupAssignment& groups = {});
Status barrier(const GroupAssignment& groups = {});
// The calling replica's id; 0 outside a replicated computation.
unsigned replica_id();
unsigned num_replicas();

}  // namespace rt::tpu
