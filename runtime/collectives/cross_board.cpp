// Collectives across boards: names and which form an all_reduce takes (cross_board.hpp).
#include "cross_board.hpp"

namespace rt {

const char* cross_board_kind_name(CrossBoardKind kind) {
  switch (kind) {
    case CrossBoardKind::kAllReduce: return "all_reduce";
    case CrossBoardKind::kAllGather: return "all_gather";
    case CrossBoardKind::kBroadcast: return "broadcast";
    case CrossBoardKind::kBarrier: return "barrier";
    case CrossBoardKind::kReduceScatter: return "reduce_scatter";
    case CrossBoardKind::kAllToAll: return "all_to_all";
    case CrossBoardKind::kCollectivePermute: return "collective_permute";
  }
  return "unknown";
}

bool reducible_by_partials(ReduceOp op, DType type) {
  const bool op_ok = op == ReduceOp::kSum || op == ReduceOp::kMax || op == ReduceOp::kMin;
  const bool type_ok = type == DType::kF32 || type == DType::kF64 || type == DType::kI32 || type == DType::kU32;
  return op_ok && type_ok;
}

}  // namespace rt
