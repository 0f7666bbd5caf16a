// `tpu run --boards K`: a pod of K boards on this machine, one Open MPI rank (one tpu, one board)
// each. launch_pod() builds the image once and hands the run to mpirun, which starts K copies of this
// tpu with the same arguments; in each, run_pod_rank() starts MPI, lets the ranks build in turn (a
// no-op after the first; never two makes at once), checks that every board agrees (pod_records.hpp),
// serves its own board as task <rank> of K (the board learns it from the link), and ends with the
// pod's status: the worst of every rank's, on every rank. Output lines start with "[task r] ".
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "host-tools/lib/pod/pod_environment.hpp"
#include "host-tools/lib/pod/row_exchange.hpp"
#include "run.hpp"

namespace tpu {

// Where a board stands in its pod (task 0 of 1 for a single board), and how its tpu reaches the
// other boards' (for the collectives across boards; none for a single board).
struct PodPlace {
  unsigned task = 0;
  unsigned num_tasks = 1;
  unsigned local_rank = 0;  // among the pod's ranks on this machine
  unsigned local_size = 1;  // the pod's ranks on this machine
  RowExchange* exchange = nullptr;
  std::vector<std::string> workers;  // the cluster spec: every task's "host:port"
  // Polled by the run loop: why this board must stop because another board of the pod failed (with
  // that board's exit status), or nothing.
  std::function<std::optional<std::pair<std::string, int>>()> stop_because;
};

struct PodRun {
  std::string board;                      // the board kind every rank runs
  std::string target;                     // the app or image, as the records compare it
  std::function<bool(const std::string& board)> build;  // make the image for a board (or say why not)
  std::vector<std::string> board_of_rank;  // a pod of different kinds (--board a,b): rank r's board
  std::function<int(PodPlace)> serve;     // run_board's loop for one board; its exit status
};

// --serial / --socket for one board of a pod: "{rank}" and "{local_rank}" in the path become the
// board's task and its rank among the pod's ranks on this machine, so that each rank attaches to a
// board of its own (/dev/ttyUSB{local_rank}: one USB-serial adapter per Pi). A board attached to
// takes its place in the pod as it boots, from tpu's hello, which tpu says until the board answers:
// start the pod, then reset the boards.
AttachTarget attach_target_of(const AttachTarget& given, const PodPlace& place);

// Exec's mpirun (does not return on success); the exit status when it cannot start the pod.
int launch_pod(const RunOptions& options, const PodRun& run);

// One rank's part of a pod; returns the pod's exit status.
int run_pod_rank(const RunOptions& options, const PodRank& rank, const PodRun& run);

}  // namespace tpu
