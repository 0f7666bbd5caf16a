// matmul over logical devices: the driving operand's tiles, the other operand's matching block, and
// an all_reduce over a split contracting dimension.
#include "runtime/tpu/spmd/spmd_matmul.hpp"

#include "runtime/mxu/core_mxu.hpp"
#include "runtime/tpu/spmd/sharding_algebra.hpp"
#include "runtime/tpu/spmd/spmd_reshard.hpp"

namespace rt::tpu::spmd {
namespace {

Status unsupported(const ShardedTensor& a, const ShardedTensor& b) {
  return Status::error(StatusCode::kUnimplemented,
                       "spmd matmul: operands of shapes {} and {} sharded {} and {} are not supported; reshard one "
                       "(gather_from_logical_devices, then split) first",
                       a.shape.sizes(), b.shape.sizes(), sharding_text(a.sharding).view(),
                       sharding_text(b.sharding).view());
}

Result<Shape> matmul_shape(const ShardedTensor& a, const ShardedTensor& b) {
  if (a.shape.rank != 2 || b.shape.rank != 2 || a.shape.dims[1] != b.shape.dims[0])
    return invalid_argument("spmd matmul: shapes {} and {} are not [M, K] x [K, N]", a.shape.sizes(), b.shape.sizes());
  Shape shape = a.shape;
  shape.dims[1] = b.shape.dims[1];
  shape.real[0] = a.shape.real[0];
  shape.real[1] = b.shape.real[1];
  return shape;
}

// Local product of two pieces: C = A x B in the arena, on this core's MXU. The pieces carry their
// real sizes: the product sums the real part of K only (padding, and the zeros past an uneven
// piece's end, contribute nothing) and C's real sizes are A's real rows and B's real columns
// (dynamic_shape.hpp, core_mxu.hpp).
Result<Tensor> local_matmul(const Tensor& a, const Tensor& b) { return rt::matmul(logical_devices().arena(), a, b); }

// The driver's contracting dimension: A's 1, B's 0; its non-contracting one is the other.
struct Roles {
  const ShardedTensor& driver;
  const ShardedTensor& other;
  unsigned driver_k;  // the driver's contracting dimension
  unsigned other_k;   // the other operand's
};

// The other operand's block for `device`: the driver's K tile along its contracting dimension, all
// of its non-contracting one.
Result<Tensor> matching_block(const Roles& roles) {
  return block_of(roles.other, [&](unsigned device) {
    Block block;
    const Block driver = piece_block(roles.driver, device);
    block.end[0] = roles.other.shape.dims[0];
    block.end[1] = roles.other.shape.dims[1];
    block.begin[roles.other_k] = driver.begin[roles.driver_k];
    block.end[roles.other_k] = driver.end[roles.driver_k];
    return block;
  });
}

Result<ShardedTensor> driven(const Roles& roles, bool a_drives, const Shape& full) {
  Result<Tensor> other = matching_block(roles);
  if (!other) return other.status();
  Result<Tensor> partial = a_drives ? local_matmul(roles.driver.local, *other) : local_matmul(*other, roles.driver.local);
  if (!partial) return partial.status();
  const Sharding& grid = roles.driver.sharding;
  bool contracting[2] = {false, false};
  contracting[roles.driver_k] = true;
  const GridMask mask = grid_mask_of(grid, contracting);
  Result<Tensor> sum = partial;
  if (mask != 0) {
    const GridGroups groups(grid, mask);
    sum = logical_devices().all_reduce(ReduceOp::kSum, *partial, groups.assignment());
    if (!sum) return sum.status();
  }
  const unsigned kept = 1 - roles.driver_k;  // C's dimension the driver's non-contracting one becomes
  int8_t grid_dim_of[2] = {Sharding::kNoGridDim, Sharding::kNoGridDim};
  grid_dim_of[a_drives ? 0 : 1] = grid.grid_dim[kept];
  return make_sharded(sum->dtype, full, on_grid(grid, 2, grid_dim_of), *sum);
}

}  // namespace

Result<ShardedTensor> matmul(const ShardedTensor& a, const ShardedTensor& b) {
  Result<Shape> full = matmul_shape(a, b);
  if (!full) return full.status();
  const ShardingKind ka = a.sharding.kind, kb = b.sharding.kind;
  if (ka == ShardingKind::kMaximal || kb == ShardingKind::kMaximal) return unsupported(a, b);
  if (ka == ShardingKind::kReplicated && kb == ShardingKind::kReplicated) {
    Result<Tensor> c = local_matmul(a.local, b.local);
    if (!c) return c.status();
    return make_sharded(c->dtype, *full, a.sharding, *c);
  }
  if (ka == ShardingKind::kTiled) return driven(Roles{a, b, 1, 0}, true, *full);
  return driven(Roles{b, a, 0, 1}, false, *full);
}

}  // namespace rt::tpu::spmd
