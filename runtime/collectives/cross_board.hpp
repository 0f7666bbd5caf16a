// A reduction whose group spans the boards of a pod (tpu run --boards K): the collectives reduce
// their board's members over the mailboxes into one partial, and the group's leader on the board
// (its first member there) hands the partial to a CrossBoardReducer, which combines the boards'
// partials through the host (runtime/tpu/replicate/uses_hal/pod_bridge.cpp: a host call that `tpu`
// answers over Open MPI) and writes the result into `out`. The order of summation is fixed and
// documented (runtime/collectives/README.md, "Across boards"): each board's partial in group order,
// then the partials in the group's task order (the order of each task's first member in the group).
#pragma once
#include "reduce.hpp"

namespace rt {

struct CrossBoardReduce {
  ReduceOp op = ReduceOp::kSum;
  DType type = DType::kF32;
  const void* partial = nullptr;  // this board's members reduced, `count` elements
  void* out = nullptr;            // receives the whole group's reduction (may be `partial`)
  size_t count = 0;
  const uint8_t* tasks = nullptr;  // the group's tasks in order of first appearance
  unsigned num_tasks = 0;
  uint32_t sequence = 0;      // the collective's number in its computation (equal on every member)
  uint32_t first_member = 0;  // the group's first replica: tells concurrent groups apart
  uint64_t timeout_ns = 0;
};

using CrossBoardReducer = Status (*)(const CrossBoardReduce& request);

// Whether a reduction across boards supports this op and dtype yet: sum, max and min of float32,
// float64, int32 and uint32 (the partials are exact in the type; mean and the 16-bit floats need a
// wider partial, not built yet).
bool reducible_across_boards(ReduceOp op, DType type);

}  // namespace rt
