// Collectives whose group spans the boards of a pod (tpu run --boards K): the members on each board
// meet over the mailboxes, and the group's first member on the board (its leader there) hands the
// board's contribution to a CrossBoardExchange, which trades it with the other boards through the
// host (runtime/tpu/replicate/uses_hal/pod_bridge.cpp: a host call that `tpu` answers over Open MPI)
// and writes the group's result back. Two forms:
//   the board's part (`row` -> `out`):
//     all_reduce  of sum, max, min of float32, float64, int32, uint32 (reducible_by_partials): its
//                 partial (its members reduced in group order) -> the partials folded left in the
//                 group's task order (the order in which each task's first member appears in the
//                 group), runtime/collectives/README.md "Across boards"
//     all_gather  its members' inputs in group order -> every member's, in group order
//     broadcast   the source's data if the source is on this board, else nothing -> the source's data
//     barrier     nothing -> nothing, once every board's members arrived
//   every member's own buffers (`member_in` -> `member_out`, by_members): the host sees each
//   member's input as it is and computes what one board computes, with the same kernels in the same
//   order, so the bits are one board's:
//     all_reduce          mean, or 16-bit floats -> the reduction of every member's input in group
//                         order (reduce_many, float32 accumulator, rounded once), into the leader's out
//     reduce_scatter      -> each member here gets the reduction (group order) of its chunk
//     all_to_all          -> each member here gets its blocks, concatenated in group order
//     collective_permute  -> each target here gets its source's input, the others zeros
#pragma once
#include "hal/core.hpp"
#include "hal/support/span.hpp"
#include "reduce.hpp"

namespace rt {

struct Shape;

enum class CrossBoardKind : uint8_t { kAllReduce, kAllGather, kBroadcast, kBarrier, kReduceScatter, kAllToAll,
                                      kCollectivePermute };
const char* cross_board_kind_name(CrossBoardKind kind);

// all_to_all's bytes, as rt::Collectives::all_to_all lays them out: block j of an input is
// split_rows rows of split_row_bytes, split_row_bytes * group size apart, starting at j *
// split_row_bytes; block j of an output is concat_rows rows of concat_row_bytes, concat_row_bytes *
// group size apart, starting at j * concat_row_bytes.
struct BlockGeometry {
  size_t split_rows = 0, split_row_bytes = 0, concat_rows = 0, concat_row_bytes = 0;
};

struct CrossBoardCall {
  CrossBoardKind kind = CrossBoardKind::kAllReduce;
  ReduceOp op = ReduceOp::kSum;  // all_reduce, reduce_scatter
  DType type = DType::kF32;
  size_t count = 0;                 // elements per member (of its input, by_members)
  const void* row = nullptr;        // this board's contribution
  size_t row_elements = 0;
  void* out = nullptr;              // the result (may be `row`)
  size_t out_elements = 0;
  const uint8_t* member_tasks = nullptr;  // the task of every group position
  unsigned group_size = 0;
  unsigned source_position = 0;  // broadcast: the source's position in the group
  uint32_t sequence = 0;         // the collective's number in its computation (equal on every member)
  uint32_t first_member = 0;     // the group's first replica: tells concurrent groups apart
  uint32_t logical_core = 0;     // the members' logical core: tells apart a group's calls from each
  uint64_t timeout_ns = 0;
  const Shape* shape = nullptr;  // the operand's, where the caller has a tensor: boards must agree on it
  // by_members: the members on this board in group order, each one's input (count elements) and
  // output (out_elements each; all_reduce: only the leader's, outputs_here = 1).
  bool by_members = false;
  unsigned inputs_here = 0, outputs_here = 0;
  const void* member_in[hal::kMaxCores] = {};
  void* member_out[hal::kMaxCores] = {};
  BlockGeometry blocks;          // all_to_all
  Span<const int64_t> pairs;     // collective_permute: [source, target] flattened, replica ids
};

using CrossBoardExchange = Status (*)(const CrossBoardCall& call);

// Whether an all_reduce across boards goes by the boards' partials: sum, max and min of float32,
// float64, int32 and uint32 (exact in the type, so a partial loses nothing). Mean and the 16-bit
// floats go by the members' inputs (the single board's order and one rounding at the end).
bool reducible_by_partials(ReduceOp op, DType type);

}  // namespace rt
