// ReplicaContext: what a replicated computation sees of its replica: its id and the replica count,
// the core (and logical core) running it, that core's arena for outputs, and TF's collectives over
// the replicas (cross_replica_sum and friends) taking and returning Tensors. Collectives map replica
// ids to cores through the ReplicaSet replicate built from the device assignment; group assignments,
// error texts and numerics are rt::Collectives' (TF_BEHAVIOUR.md section 2). Every replica of a group
// must make the same collective calls in the same order (SPMD).
//
// Results are new contiguous tensors allocated in the replica's arena, shaped as TF shapes them:
//   cross_replica_sum / all_reduce / collective_permute / broadcast: the input's shape;
//   all_gather: the members' tensors concatenated along dimension 0 in group order (a scalar
//     becomes a vector of group-size elements);
//   all_to_all: split_dimension divided and concat_dimension multiplied by split_count.
// Inputs may be strided views (they are copied to contiguous scratch first).
// Outside a replicated computation (ReplicaContext::single) there is one replica: group [[0]].
#pragma once
#include "computation.hpp"
#include "runtime/collectives/collectives.hpp"
#include "runtime/tensor/arena.hpp"

namespace rt::tpu {

// Where one replica runs.
struct ReplicaPlacement {
  unsigned replica = 0;
  unsigned num_replicas = 1;
  unsigned core = 0;
  unsigned logical_core = 0;
  unsigned num_logical_cores = 1;  // cores per replica (model parallelism: logical_devices_context.hpp)
};

class ReplicaContext {
 public:
  ReplicaContext(const ReplicaPlacement& placement, const ReplicaSet& replicas, uint64_t collective_timeout_ns,
                 bool replicated = true);
  // The one-replica context of code running outside any replicated computation on `core`.
  static ReplicaContext single(unsigned core);

  unsigned replica_id() const { return placement_.replica; }
  unsigned num_replicas() const { return placement_.num_replicas; }
  unsigned core() const { return placement_.core; }
  unsigned logical_core() const { return placement_.logical_core; }
  // The cores ("logical devices") the replica spans; its computation runs on each (SPMD).
  unsigned num_logical_cores() const { return placement_.num_logical_cores; }
  // False for the single-replica context of code outside replicate.
  bool replicated() const { return replicated_; }
  // A pod of boards: whether replica `replica` runs on this board, and whether some run on others.
  bool is_on_this_board(unsigned replica) const { return collectives_.is_on_this_board(replica); }
  bool spans_boards() const { return collectives_.spans_boards(); }
  // The replica's core's arena ("HBM"), for outputs and scratch.
  Arena& arena() const;

  Result<Tensor> cross_replica_sum(const Tensor& x, const GroupAssignment& groups = {});
  Result<Tensor> all_reduce(ReduceOp op, const Tensor& x, const GroupAssignment& groups = {});
  // all_reduce into x itself (contiguous: a buffer the caller owns, such as a packed temporary):
  // the same bits, without an output buffer (and, for a group of one, without a pass over x).
  Status all_reduce_in_place(ReduceOp op, const Tensor& x, const GroupAssignment& groups = {});
  Result<Tensor> all_gather(const Tensor& x, const GroupAssignment& groups = {});
  // XLA's reduce-scatter along dimension 0: the group's x reduced with `op`, and member p of the
  // group keeps rows [p * rows / n, (p + 1) * rows / n) of the result (n: the group's size, which
  // dimension 0 must divide).
  Result<Tensor> reduce_scatter(ReduceOp op, const Tensor& x, const GroupAssignment& groups = {});
  Result<Tensor> all_to_all(const Tensor& x, int64_t concat_dimension, int64_t split_dimension, int64_t split_count,
                            const GroupAssignment& groups = {});
  // source_target_pairs = [[source, target], ...] flattened; replicas that are no target get zeros.
  Result<Tensor> collective_permute(const Tensor& x, Span<const int64_t> source_target_pairs);
  // Every member of the caller's group gets `source_replica`'s x.
  Result<Tensor> broadcast(const Tensor& x, unsigned source_replica, const GroupAssignment& groups = {});
  Status barrier(const GroupAssignment& groups = {});

 private:
  // `shape`: the operand's, compared across the group (CollectiveOptions::shape).
  CollectiveOptions options(const GroupAssignment& groups, const Shape* shape = nullptr) const;
  // x itself when contiguous, else a contiguous copy in the arena.
  Result<Tensor> contiguous(const Tensor& x, StringView what);
  Result<Tensor> allocate(DType dtype, const Shape& shape, StringView what);
  unsigned group_size(const GroupAssignment& groups) const;

  ReplicaPlacement placement_;
  Collectives collectives_;
  uint64_t collective_timeout_ns_;
  bool replicated_;
};

}  // namespace rt::tpu
