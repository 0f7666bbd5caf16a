// How a collective leaves the board in a pod of boards (runtime/collectives/cross_board.hpp): the
// group's leader on this board calls the reserved host function ".pod" with the board's contribution;
// the board's `tpu` trades it with the other boards' `tpu` over Open MPI, computes the group's result
// (host-tools/lib/pod/pod_collectives.hpp) and writes it back. The call's text says what it is, e.g.
// "all_reduce op=sum type=float32 count=4 members=0,0,1,1 source=0 seq=3 first=0 lc=0 shape=[2,2]"
// (members: the task of every group position; shape: the operand's, where the caller has a tensor).
// Every board of the group sends the same text, and tpu compares them before it trades the parts
// (a difference is a collective mismatch). A call by the members' own buffers adds "by=members" (its
// tensors are every member's input here, in group order, its results every member's output, or the
// leader's alone for all_reduce), all_to_all "blocks=<split rows>,<split row bytes>,<concat rows>,
// <concat row bytes>" and collective_permute "pairs=<source>:<target>,...".
#pragma once
#include "runtime/collectives/cross_board.hpp"

namespace rt::tpu {

// The reserved host-function name of a pod's collectives across boards (as ".outfeed" is outfeed's).
inline constexpr const char* kPodFunction = ".pod";

Status exchange_across_boards(const CrossBoardCall& call);

}  // namespace rt::tpu
