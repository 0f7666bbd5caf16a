// Tensor-level collectives over a replica's rt::Collectives, with outputs in the replica's arena.
#include "runtime/tpu/replicate/replica_context.hpp"

#include "runtime/ops/copy.hpp"
#include "runtime/tensor/hbm.hpp"

namespace rt::tpu {
namespace {

ReplicaSet single_replica_set(unsigned core) {
  ReplicaSet set;
  set.count = 1;
  set.core_of[0] = static_cast<uint8_t>(core);
  return set;
}

// all_to_all's output shape, when the arguments are ones rt::Collectives accepts (it reports the others).
bool all_to_all_shape(const Shape& in, int64_t concat_dimension, int64_t split_dimension, int64_t split_count,
                      Shape& out) {
  const int64_t rank = in.rank;
  if (split_count < 1 || concat_dimension < 0 || concat_dimension >= rank || split_dimension < 0 ||
      split_dimension >= rank || in.dims[split_dimension] % split_count != 0)
    return false;
  out = in;
  out.dims[split_dimension] /= split_count;
  out.dims[concat_dimension] *= split_count;
  for (unsigned d = 0; d < out.rank; ++d) out.real[d] = out.dims[d];
  return true;
}

}  // namespace

ReplicaContext::ReplicaContext(const ReplicaPlacement& placement, const ReplicaSet& replicas,
                               uint64_t collective_timeout_ns, bool replicated)
    : placement_(placement),
      collectives_(replicas, placement.replica),
      collective_timeout_ns_(collective_timeout_ns),
      replicated_(replicated) {}

ReplicaContext ReplicaContext::single(unsigned core) {
  ReplicaPlacement placement;
  placement.core = core;
  return ReplicaContext(placement, single_replica_set(core), kDefaultWaitTimeoutNs, false);
}

Arena& ReplicaContext::arena() const { return hbm_of(placement_.core); }

CollectiveOptions ReplicaContext::options(const GroupAssignment& groups, const Shape* shape) const {
  CollectiveOptions options;
  options.groups = groups;
  options.shape = shape;
  options.timeout_ns = collective_timeout_ns_;
  return options;
}

unsigned ReplicaContext::group_size(const GroupAssignment& groups) const {
  return groups.is_default() ? placement_.num_replicas : groups.group_size;
}

Result<Tensor> ReplicaContext::allocate(DType dtype, const Shape& shape, StringView what) {
  return arena().allocate_tensor(dtype, shape, what);
}

Result<Tensor> ReplicaContext::contiguous(const Tensor& x, StringView what) {
  if (x.is_contiguous()) return x;
  Result<Tensor> copy_of_x = allocate(x.dtype, x.shape, what);
  if (!copy_of_x) return copy_of_x;
  RT_RETURN_IF_ERROR(copy(x, *copy_of_x));
  return copy_of_x;
}

Result<Tensor> ReplicaContext::cross_replica_sum(const Tensor& x, const GroupAssignment& groups) {
  return all_reduce(ReduceOp::kSum, x, groups);
}

Result<Tensor> ReplicaContext::all_reduce(ReduceOp op, const Tensor& x, const GroupAssignment& groups) {
  Result<Tensor> in = contiguous(x, "a cross_replica_sum input");
  if (!in) return in;
  Result<Tensor> out = allocate(x.dtype, x.shape, "a cross_replica_sum output");
  if (!out) return out;
  RT_RETURN_IF_ERROR(collectives_.all_reduce(op, x.dtype, in->data, out->data, x.num_elements(), options(groups, &x.shape)));
  return out;
}

Status ReplicaContext::all_reduce_in_place(ReduceOp op, const Tensor& x, const GroupAssignment& groups) {
  if (!x.is_contiguous()) return invalid_argument("all_reduce_in_place: a strided view has no buffer to reduce into");
  return collectives_.all_reduce(op, x.dtype, x.data, x.data, x.num_elements(), options(groups, &x.shape));
}

Result<Tensor> ReplicaContext::all_gather(const Tensor& x, const GroupAssignment& groups) {
  Result<Tensor> in = contiguous(x, "an all_gather input");
  if (!in) return in;
  Shape shape = x.shape;
  if (shape.rank == 0) shape.rank = 1, shape.dims[0] = 1;
  shape.dims[0] *= group_size(groups);
  for (unsigned d = 0; d < shape.rank; ++d) shape.real[d] = shape.dims[d];
  Result<Tensor> out = allocate(x.dtype, shape, "an all_gather output");
  if (!out) return out;
  RT_RETURN_IF_ERROR(collectives_.all_gather(x.dtype, in->data, out->data, x.num_elements(), options(groups, &x.shape)));
  return out;
}

Result<Tensor> ReplicaContext::reduce_scatter(ReduceOp op, const Tensor& x, const GroupAssignment& groups) {
  const unsigned members = group_size(groups);
  if (x.shape.rank == 0 || x.shape.dims[0] % members != 0)
    return invalid_argument("reduce_scatter: dimension 0 of x (shape {}) must divide by the group's {} members",
                            x.shape.sizes(), members);
  Result<Tensor> in = contiguous(x, "a reduce_scatter input");
  if (!in) return in;
  Shape shape = x.shape;
  shape.dims[0] /= members;
  for (unsigned d = 0; d < shape.rank; ++d) shape.real[d] = shape.dims[d];
  Result<Tensor> out = allocate(x.dtype, shape, "a reduce_scatter output");
  if (!out) return out;
  RT_RETURN_IF_ERROR(collectives_.reduce_scatter(op, x.dtype, in->data, out->data, x.num_elements(), options(groups, &x.shape)));
  return out;
}

Result<Tensor> ReplicaContext::all_to_all(const Tensor& x, int64_t concat_dimension, int64_t split_dimension,
                                          int64_t split_count, const GroupAssignment& groups) {
  Result<Tensor> in = contiguous(x, "an all_to_all input");
  if (!in) return in;
  Shape shape;
  Tensor out;  // no memory when the arguments are invalid: rt::Collectives rejects them before any access
  out.dtype = x.dtype;
  if (all_to_all_shape(x.shape, concat_dimension, split_dimension, split_count, shape)) {
    Result<Tensor> allocated = allocate(x.dtype, shape, "an all_to_all output");
    if (!allocated) return allocated;
    out = *allocated;
  }
  RT_RETURN_IF_ERROR(collectives_.all_to_all(x.dtype, in->data, out.data, x.shape.sizes(), concat_dimension,
                                             split_dimension, split_count, options(groups, &x.shape)));
  return out;
}

Result<Tensor> ReplicaContext::collective_permute(const Tensor& x, Span<const int64_t> source_target_pairs) {
  Result<Tensor> in = contiguous(x, "a collective_permute input");
  if (!in) return in;
  Result<Tensor> out = allocate(x.dtype, x.shape, "a collective_permute output");
  if (!out) return out;
  RT_RETURN_IF_ERROR(collectives_.collective_permute(x.dtype, in->data, out->data, x.num_elements(),
                                                     source_target_pairs, options({}, &x.shape)));
  return out;
}

Result<Tensor> ReplicaContext::broadcast(const Tensor& x, unsigned source_replica, const GroupAssignment& groups) {
  Result<Tensor> out = allocate(x.dtype, x.shape, "a broadcast output");
  if (!out) return out;
  RT_RETURN_IF_ERROR(copy(x, *out));
  RT_RETURN_IF_ERROR(collectives_.broadcast(source_replica, x.dtype, out->data, x.num_elements(), options(groups, &x.shape)));
  return out;
}

Status ReplicaContext::barrier(const GroupAssignment& groups) { return collectives_.barrier(options(groups)); }

}  // namespace rt::tpu
