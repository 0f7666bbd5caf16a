// `tpu run`: build (or take) a firmware image, boot it the way `make run` would, and be its host:
// print its console as it arrives, serve its host calls, stream its infeed datasets
// (host-tools/lib/feeds/infeed_sender.hpp), save its outfeed, and exit with its status.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "host-tools/lib/board/board_launch.hpp"
#include "host-tools/lib/feeds/infeed_dataset.hpp"

namespace tpu {

struct RunOptions {
  std::optional<std::string> board;  // default: from the ELF, else qemu-virt-a53
  unsigned cores = 0;  // --cores; 0: the board's default (8, raspi3b 4)
  unsigned boards = 0;  // --boards K: a pod of K such boards on this machine, one Open MPI rank each (run_pod.hpp)
  std::string pod_network = "shm";  // --pod-network shm|tcp: how Open MPI carries the pod's traffic
  double timeout_s = 120;  // --timeout (inf: no limit)
  bool timeout_given = false;  // whether --timeout was given (a run stopped at the default says how to lift it)
  double host_call_deadline_s = 20;  // --host-call-deadline: for the app's host functions that declare none
  std::optional<std::filesystem::path> outfeed_dir;
  std::vector<InfeedFiles> infeed;  // --infeed QUEUE=FILE.npy[,FILE2.npy...], one per queue
  std::optional<std::filesystem::path> trace_file;  // --trace: Chrome trace JSON + utilisation table
  std::string bind_to = "none";  // --bind-to core|none: host-board cores on CPUs of their own (cpu_sharing.hpp)
  bool watch = false;  // --watch: what every core does, live from board memory (host-tools/lib/triage/core_watch.hpp)
  LinkChoice link = LinkChoice::kAuto;  // --link shm|uart: how frames travel (shm where the board has it)
  AttachTarget attach;  // --serial DEV [--baud B] / --socket PATH: a running board, not a launched one
  bool chainboot = false;  // --chainboot: send the board (raspi3b, attached) the image through its UART chainloader first
  std::string target;  // an app name or folder (built with make image) or an image path (optional when attaching)
  std::vector<std::string> argv;  // tpu's whole command line, for handing the run to the app's tool
};

// Adds one --infeed value to `options`; returns "" or what is wrong with it (a bad value, a queue
// given twice).
std::string add_infeed_option(RunOptions& options, const std::string& value);

// The exit status of the run: the board process's own (0 pass, 1 fail, 3 fault, 4 timeout, ...),
// 1 if it exited 0 although a core reported a failure, 4 if tpu's timeout struck, 2 if the image
// could not be built or started, 5 if the board's process (QEMU) was killed by a signal (the message
// names it; tpu never passes a child's 128 + signal on as its own), 6 if one of the app's host
// functions crashed or missed its deadline (host_function_worker.hpp), 7 if a pod's ranks could not
// reach each other (Open MPI failed, a rank stuck), 128 + the signal after SIGINT (130, Ctrl-C) or SIGTERM (143). A pod's ranks all end
// with the worst status of any of its boards.
int run_board(const RunOptions& options);

}  // namespace tpu
