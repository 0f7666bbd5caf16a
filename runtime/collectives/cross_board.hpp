// Collectives whose group spans the boards of a pod (tpu run --boards K): the members on each board
// meet over the mailboxes, and the group's first member on the board (its leader there) hands the
// board's contribution to a CrossBoardExchange, which trades it with the other boards through the
// host (runtime/tpu/replicate/uses_hal/pod_bridge.cpp: a host call that `tpu` answers over Open MPI)
// and writes the group's result into `out`. What a board contributes and gets back:
//   all_reduce  its partial (its members reduced in group order), count elements -> the reduction:
//               the partials folded left in the group's task order (the order in which each task's
//               first member appears in the group), runtime/collectives/README.md "Across boards"
//   all_gather  its members' inputs in group order, count elements each -> every member's, in group order
//   broadcast   the source's data if the source is on this board, else nothing -> the source's data
//   barrier     nothing -> nothing, once every board's members arrived
#pragma once
#include "reduce.hpp"

namespace rt {

enum class CrossBoardKind : uint8_t { kAllReduce, kAllGather, kBroadcast, kBarrier };
const char* cross_board_kind_name(CrossBoardKind kind);

struct CrossBoardCall {
  CrossBoardKind kind = CrossBoardKind::kAllReduce;
  ReduceOp op = ReduceOp::kSum;  // all_reduce
  DType type = DType::kF32;
  size_t count = 0;                 // elements per member (all_reduce, all_gather, broadcast)
  const void* row = nullptr;        // this board's contribution
  size_t row_elements = 0;
  void* out = nullptr;              // the result (may be `row`)
  size_t out_elements = 0;
  const uint8_t* member_tasks = nullptr;  // the task of every group position
  unsigned group_size = 0;
  unsigned source_position = 0;  // broadcast: the source's position in the group
  uint32_t sequence = 0;         // the collective's number in its computation (equal on every member)
  uint32_t first_member = 0;     // the group's first replica: tells concurrent groups apart
  uint64_t timeout_ns = 0;
};

using CrossBoardExchange = Status (*)(const CrossBoardCall& call);

// Whether an all_reduce across boards supports this op and dtype yet: sum, max and min of float32,
// float64, int32 and uint32 (the partials are exact in the type; mean and the 16-bit floats need a
// wider partial, not built yet).
bool reducible_across_boards(ReduceOp op, DType type);

}  // namespace rt
