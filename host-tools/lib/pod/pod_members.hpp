// Collectives across boards by the members' own buffers ("by=members", pod_collectives.hpp), the
// host's part: which pieces of its members' inputs a board sends the others (its row), and the
// outputs of this board's members, computed from their inputs and the other boards' rows exactly as
// one board computes them:
//   all_reduce          every member's input, reduced in group order by the board's own kernel
//                       (rt::reduce_many, runtime/collectives/reduce.cpp, which the host library
//                       compiles): float32 accumulator for the 16-bit floats, rounded once;
//                       mean divided by the group size at the end
//   reduce_scatter      member p: chunk p of every member's input, reduced the same way
//   all_to_all          member p: block p of every member's input, concatenated in group order
//   collective_permute  each target: its source's input; a member that is no target: zeros
// A board sends each other board a row of its own, holding only what that board needs: all_reduce
// every member's input (the same row for every board); reduce_scatter and all_to_all each member's
// chunks / blocks for the positions on that board; collective_permute the inputs of sources whose
// target is on that board. With K > 2 boards nothing reaches a board that has no use for it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pod_collectives.hpp"

namespace tpu {

// A request's op ("sum", "mean", "max", "min") as the board's reduction names it.
rt::ReduceOp reduce_op_named(const std::string& name);

// One piece of a row: group position `member`'s contribution to position `destination`.
struct MemberPiece {
  unsigned member = 0;
  unsigned destination = 0;
};

// The pieces task `from`'s row to task `to` holds, in order, and the bytes of each.
std::vector<MemberPiece> row_pieces(const PodRequest& request, unsigned from, unsigned to);
size_t piece_bytes(const PodRequest& request);

// This board's row to task `to`, from its members' inputs (request.members_on(task) order).
std::vector<uint8_t> pack_member_row(const PodRequest& request, unsigned task, unsigned to,
                                     const std::vector<std::vector<uint8_t>>& inputs_here);

// The outputs of this board's members, in group order (all_reduce: one, the leader's), from their
// inputs and the row every task sent this one (request.tasks() order; this task's own entry is not
// read); nothing and `error` if a row is not the size its task's part should be.
std::vector<std::vector<uint8_t>> member_outputs(const PodRequest& request, unsigned task,
                                                 const std::vector<std::vector<uint8_t>>& inputs_here,
                                                 const std::vector<std::vector<uint8_t>>& rows, std::string& error);

}  // namespace tpu
