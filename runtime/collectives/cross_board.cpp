// What a reduction across the boards of a pod supports so far (cross_board.hpp).
#include "cross_board.hpp"

namespace rt {

bool reducible_across_boards(ReduceOp op, DType type) {
  const bool op_ok = op == ReduceOp::kSum || op == ReduceOp::kMax || op == ReduceOp::kMin;
  const bool type_ok = type == DType::kF32 || type == DType::kF64 || type == DType::kI32 || type == DType::kU32;
  return op_ok && type_ok;
}

}  // namespace rt
