// matmul over logical devices: C = A x B (A [M, K], B [K, N]) on operands tiled over the logical
// devices of a replica, as XLA's SPMD partitioner (dot_handler.cc) partitions a dot: one operand
// drives the layout, the other is resharded to what each device needs, a split contracting dimension
// makes partial products that an all_reduce sums, and the result keeps the driver's tiling of its
// non-contracting dimension, replicated across its contracting one (a partially replicated tiling):
//   A tiled [pm, pk] (B any sharding but maximal): device (i, k) of A's grid multiplies its piece by
//       rows [k K/pk, (k+1) K/pk) of B, all columns: B's own piece when B is tiled [pk, 1] with the
//       same devices on each K tile (no communication), a slice of B when B is replicated, else a
//       slice of the whole B, all-gathered first (e.g. B tiled [pk, pn]: the "A split on rows and K,
//       B split on K and columns" layout). With pk > 1 the partial products [M/pm, N] are summed by
//       an all_reduce over the devices that differ only in k (ascending k). C is tiled [pm, 1] over
//       A's grid, each tile on pk devices: [n, 1] x replicated -> [n, 1]; [1, n] x [n, 1] ->
//       replicated; [pm, pk] x [pk, pn] -> [pm, 1] (pk copies each);
//   A replicated, B tiled [pk, pn]: the mirror image (A's columns for B's K tile; C tiled [1, pn]
//       over B's grid): replicated x [1, n] -> [1, n];
//   both replicated: every device computes all of C.
// A maximal operand is an UNIMPLEMENTED error naming both shardings.
// Padded dimensions (uneven shards included): every piece and block carries its real sizes (a block
// past the operand's end is zero-filled), each device contracts over the real part of its K tile
// only (runtime/mxu/core_mxu.hpp's matmul), and C's real sizes are A's real rows and B's real
// columns: the unsplit matmul's.
// Numerics: the MXU's (runtime/mxu): without a K split every element's chain is the unsplit one, bit
// for bit; a K split sums partial products in ascending K-tile order (float32: ((p0 + p1) + p2) ...),
// a reassociation of the unsplit chain (int8 results, and float32 ones whose partial sums are all
// exact, are the same bits). Every logical core must call it (SPMD).
#pragma once
#include "spmd_tensor.hpp"

namespace rt::tpu::spmd {

Result<ShardedTensor> matmul(const ShardedTensor& a, const ShardedTensor& b);

}  // namespace rt::tpu::spmd
