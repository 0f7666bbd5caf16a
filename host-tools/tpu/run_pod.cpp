// A pod of boards under Open MPI (run_pod.hpp).
#include "run_pod.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <vector>

#include "host-tools/lib/board/board_launch.hpp"
#include "host-tools/lib/board/cpu_sharing.hpp"
#include "host-tools/lib/feeds/infeed_dataset.hpp"
#include "host-tools/lib/pod/line_prefix.hpp"
#include "host-tools/lib/pod/mpi_pod.hpp"
#include "host-tools/lib/pod/pod_launcher.hpp"
#include "host-tools/lib/pod/pod_scratch.hpp"
#include "host-tools/lib/pod/tf_config.hpp"
#include "host-tools/lib/text/rank_placeholder.hpp"
#include "run_report.hpp"
#include "runtime/pod/pod_devices.hpp"

namespace tpu {
namespace {

constexpr double kStartTimeoutS = 120;  // every rank reaches MPI_Init (they start together)
constexpr double kBuildTimeoutS = 1800;  // one rank's turn to build (a first build of a QEMU board)
constexpr double kExchangeTimeoutS = 60;
constexpr double kEndGraceS = 60;  // past --timeout, for the slowest rank to end its board
constexpr unsigned kTpuWorkerPort = 8470;  // TF's TPU worker port

// This rank's address in the cluster spec: TF_CONFIG's where it is set (checked against the rank;
// "{rank}" in it is this rank, so that `tpu run --boards`, whose ranks share one environment, can say
// "index": {rank}), else this machine's name and the TPU worker port plus the local rank. nullopt
// after saying why not.
std::optional<std::string> worker_address(const PodRank& rank) {
  const char* json = std::getenv("TF_CONFIG");
  if (json == nullptr || *json == '\0') return rank.host + ":" + std::to_string(kTpuWorkerPort + rank.local_rank);
  std::string error;
  const std::optional<TfConfig> config = parse_tf_config(fill_placeholder(json, kRankPlaceholder, rank.rank), error);
  if (config) error = check_tf_config(*config, rank.rank, rank.size);
  if (!error.empty()) {
    std::cerr << "tpu: rank " << rank.rank << " (host " << rank.host << "): " << error << std::endl;
    return std::nullopt;
  }
  const std::string& address = config->workers[rank.rank];
  if (address.size() > kMaxWorkerAddressChars) {  // the rank records carry it in a fixed field
    std::cerr << "tpu: rank " << rank.rank << " (host " << rank.host << "): TF_CONFIG's address of worker "
              << rank.rank << " has " << address.size() << " characters, more than the " << kMaxWorkerAddressChars
              << " a pod's records hold: '" << address << "'" << std::endl;
    return std::nullopt;
  }
  return address;
}

// Why `boards` boards of `cores` cores cannot be one pod (every TPU device of a pod has a row in the
// runtime's tables of kMaxPodDevices), or "". Checked before any board boots: an app sizing its own
// per-replica arrays by kMaxReplicas would otherwise overrun them.
std::string pod_size_refusal(unsigned boards, unsigned cores_given) {
  const unsigned cores = cores_or_default(cores_given), devices = boards * cores;
  if (devices <= rt::kMaxPodDevices) return "";
  return "a pod of " + std::to_string(boards) + " boards of " + std::to_string(cores) + " cores has " +
         std::to_string(devices) + " TPU devices; the runtime's tables hold at most " +
         std::to_string(rt::kMaxPodDevices) + " (kMaxPodDevices) in all";
}

bool names_its_rank(const std::string& path) {
  return has_placeholder(path, kRankPlaceholder) || has_placeholder(path, kLocalRankPlaceholder);
}

// Why this run cannot be a pod of `boards` boards, `boards_here` of them on this machine, or "".
std::string pod_refusal(const RunOptions& options, unsigned boards, unsigned boards_here) {
  const std::optional<std::string>& path = options.attach.serial ? options.attach.serial : options.attach.socket;
  if (path && boards_here > 1 && !names_its_rank(*path))
    return std::string(options.attach.serial ? "--serial " : "--socket ") + *path + ": " + std::to_string(boards_here) +
           " boards of the pod on this machine would all attach to it; put {rank} or {local_rank} in the path "
           "(e.g. /dev/ttyUSB{local_rank}), which each rank replaces with its own";
  return pod_size_refusal(boards, options.cores);
}

std::string link_name(LinkChoice link) { return link == LinkChoice::kShm ? "shm" : link == LinkChoice::kUart ? "uart" : "auto"; }

std::string this_tpu() {
  std::error_code error;
  const std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("tpu") : path.string();
}

// Why the --infeed files cannot feed a pod of `boards` ranks on this machine, or "": every rank's
// files (x.{rank}.npy named for each rank; one file the pod splits, once) read and checked as each
// rank will, before mpirun starts, as one board refuses them before it boots.
std::string infeed_refusal(const RunOptions& options, unsigned boards) {
  for (const InfeedFiles& given : options.infeed)
    for (unsigned rank = 0; rank < (names_rank(given) ? boards : 1); ++rank) {
      std::string error;
      if (!InfeedDataset::load(infeed_files_of_rank(given, rank), error))
        return "--infeed (rank " + std::to_string(rank) + "): " + error;
    }
  return "";
}

// Every rank builds in turn (rank 0 first); a rank whose build failed still takes its part in the
// barriers. false if MPI failed (then `error` says why).
bool build_in_turn(MpiPod& pod, const PodRun& run, bool& built, std::string& error) {
  built = false;
  for (unsigned turn = 0; turn < pod.rank().size; ++turn) {
    if (turn == pod.rank().rank) built = run.build(run.board);
    if (!pod.barrier("rank " + std::to_string(turn) + "'s build", kBuildTimeoutS, error)) return false;
  }
  return true;
}

// The pod's status from every rank's; ends MPI. A rank that cannot agree ends the whole job. A rank
// whose board failed first tells the others, so that they stop their boards at once.
int agree_and_finish(MpiPod& pod, int status, double timeout_s) {
  if (status != 0) pod.announce_failure(status);
  std::string error;
  const std::optional<int> worst = pod.worst_status(status, timeout_s, error);
  if (!worst) {
    std::cerr << "tpu: " << error << "; ending the pod" << std::endl;
    pod.abort(status != 0 ? status : kExitPodFailed);
  }
  // Said before MPI ends: once a rank exits non-zero, mpirun may stop the others at any moment.
  if (*worst != status && status == 0)
    std::cerr << "tpu: this board passed, but another board of the pod failed (the pod's exit status is " << *worst
              << ")" << std::endl;
  pod.finish(*worst != 0 ? *worst : kExitPodFailed);
  return *worst;
}

// Open MPI's files in a scratch folder of their own (pod_scratch.hpp). Without one (no /dev/shm: a
// pod over TCP needs none) the pod still runs, left to Open MPI's own cleanup.
std::optional<std::string> scratch_for(PodLaunch& launch) {
  std::string error;
  std::optional<std::string> scratch = make_pod_scratch(error);
  if (scratch)
    launch.scratch_folder = *scratch;
  else
    std::cerr << "tpu: " << error << "; Open MPI keeps its files where it does by default" << std::endl;
  return scratch;
}

}  // namespace

AttachTarget attach_target_of(const AttachTarget& given, const PodPlace& place) {
  AttachTarget own = given;
  for (std::optional<std::string>* path : {&own.serial, &own.socket})
    if (*path)
      **path = fill_placeholder(fill_placeholder(**path, kRankPlaceholder, place.task), kLocalRankPlaceholder,
                                place.local_rank);
  return own;
}

int launch_pod(const RunOptions& options, const PodRun& run) {
  if (const std::string refusal = pod_refusal(options, options.boards, options.boards); !refusal.empty()) {
    std::cerr << "tpu: " << refusal << std::endl;
    return kExitBuildFailed;
  }
  if (const std::string refusal = infeed_refusal(options, options.boards); !refusal.empty()) {
    std::cerr << "tpu: " << refusal << std::endl;
    return kExitBuildFailed;
  }
  const std::vector<std::string> kinds = run.board_of_rank.empty() ? std::vector<std::string>{run.board} : run.board_of_rank;
  for (const std::string& board : kinds)
    if (!run.build(board)) return kExitBuildFailed;
  PodLaunch launch;
  launch.boards = options.boards;
  launch.tpu_path = this_tpu();
  launch.tpu_arguments.assign(options.argv.begin() + (options.argv.empty() ? 0 : 1), options.argv.end());
  launch.as_root = geteuid() == 0;
  launch.network = options.pod_network;
  if (const char* extra = std::getenv("TPU_MPIRUN_ARGS")) launch.extra_mpirun_arguments = extra;
  launch.board_of_rank = run.board_of_rank;
  if (launch.as_root) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  const std::optional<std::string> scratch = scratch_for(launch);
  const std::vector<std::string> command = mpirun_command(launch);
  std::cerr << "tpu: a pod of " << options.boards << " " << (run.board_of_rank.empty() ? run.board : "mixed")
            << " boards, one Open MPI rank each:";
  for (const std::string& word : command) std::cerr << " " << word;
  std::cerr << std::endl;
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  if (scratch && !guard_pod_scratch(*scratch)) {
    std::cerr << "tpu: cannot start the guard of the pod's scratch folder: " << std::strerror(errno) << std::endl;
    return kExitBuildFailed;
  }
  execvp(argv[0], argv.data());
  std::cerr << "tpu: cannot start mpirun (Open MPI's openmpi-bin; `make setup-host-tools` installs it): "
            << std::strerror(errno) << std::endl;
  return kExitBuildFailed;
}

int run_pod_rank(const RunOptions& options, const PodRank& rank, const PodRun& run) {
  prefix_output_lines("[task " + std::to_string(rank.rank) + "] ");
  if (options.boards != 0 && options.boards != rank.size) {
    std::cerr << "tpu: --boards " << options.boards << ", but mpirun started " << rank.size << " ranks" << std::endl;
    return kExitBuildFailed;  // every rank says the same and ends: mpirun sees them all fail
  }
  if (const std::string refusal = pod_refusal(options, rank.size, rank.local_size); !refusal.empty()) {
    std::cerr << "tpu: " << refusal << std::endl;
    return kExitBuildFailed;
  }
  const std::optional<std::string> address = worker_address(rank);
  if (!address) return kExitBuildFailed;
  std::string error;
  std::unique_ptr<MpiPod> pod = MpiPod::start(rank, kStartTimeoutS, error);
  if (!pod) {
    std::cerr << "tpu: " << error << std::endl;
    return kExitPodFailed;
  }
  pod->stop_waiting_when(install_interrupt_handlers());
  bool built = false;
  if (!build_in_turn(*pod, run, built, error)) {
    std::cerr << "tpu: " << error << "; ending the pod" << std::endl;
    pod->abort(kExitPodFailed);
  }
  PodRankRecord mine =
      make_pod_record(rank.rank, rank.host, run.board, options.cores, run.target, link_name(options.link), *address);
  mine.ready = built ? 1 : 0;
  const std::optional<std::vector<PodRankRecord>> records = pod->exchange(mine, kExchangeTimeoutS, error);
  if (!records) {
    std::cerr << "tpu: " << error << "; ending the pod" << std::endl;
    pod->abort(kExitPodFailed);
  }
  if (const std::string problem = check_pod_records(*records); !problem.empty()) {
    if (rank.rank == 0) std::cerr << "tpu: " << problem << std::endl;
    return agree_and_finish(*pod, kExitBuildFailed, kExchangeTimeoutS);
  }
  if (rank.rank == 0) {
    bool one_kind = true;
    for (const PodRankRecord& record : *records) one_kind = one_kind && std::string(record.board) == run.board;
    std::cerr << "tpu: a pod of " << rank.size << " " << (one_kind ? run.board : std::string("mixed"))
              << " boards: every rank agrees" << std::endl;
  }
  const std::vector<PodRankRecord> table = *records;
  PodPlace place{rank.rank, rank.size, rank.local_rank, rank.local_size, pod.get(), pod_workers(table), {}};
  place.stop_because = [&pod, table]() -> std::optional<std::pair<std::string, int>> {
    const std::optional<std::pair<unsigned, int>> failed = pod->failure_of_another();
    if (!failed || failed->first >= table.size()) return std::nullopt;
    return std::make_pair(describe_rank(table[failed->first]) + " failed with exit status " +
                              std::to_string(failed->second),
                          failed->second);
  };
  const int status = run.serve(place);
  return agree_and_finish(*pod, status, options.timeout_s + kEndGraceS);
}

}  // namespace tpu
