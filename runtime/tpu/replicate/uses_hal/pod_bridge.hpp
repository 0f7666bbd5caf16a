// The way a reduction leaves the board in a pod of boards (runtime/collectives/cross_board.hpp): the
// group's leader on this board calls the reserved host function ".pod" with its partial; the board's
// `tpu` exchanges the partials with the other boards' `tpu` over Open MPI, combines them in the
// group's task order (host-tools/lib/pod/pod_collectives.hpp) and writes the result back into `out`.
// The call's text says what it is: "all_reduce op=sum type=float32 count=N tasks=0,1 seq=S first=F".
#pragma once
#include "runtime/collectives/cross_board.hpp"

namespace rt::tpu {

// The reserved host-function name of a pod's cross-board collectives (as ".outfeed" is outfeed's).
inline constexpr const char* kPodFunction = ".pod";

Status reduce_across_boards(const CrossBoardReduce& request);

}  // namespace rt::tpu
