// The mpirun command of a pod on this machine (pod_launcher.hpp).
#include "pod_launcher.hpp"

#include <sstream>

namespace tpu {

std::vector<std::string> mpirun_command(const PodLaunch& launch) {
  const bool tcp = launch.network == "tcp";
  std::vector<std::string> argv = {"mpirun", "-n", std::to_string(launch.boards), "--oversubscribe", "--bind-to", "none",
                                   "--stdin", "none", "--mca", "plm", "isolated", "--mca", "btl",
                                   tcp ? "self,tcp" : "self,vader"};
  if (tcp) argv.insert(argv.end(), {"--mca", "btl_tcp_if_include", "lo"});
  argv.insert(argv.end(), {"--mca", "btl_base_warn_component_unused", "0", "--mca", "mpi_yield_when_idle", "1"});
  if (!launch.scratch_folder.empty())
    argv.insert(argv.end(), {"--mca", "orte_tmpdir_base", launch.scratch_folder, "--mca", "btl_vader_backing_directory",
                             launch.scratch_folder});
  static const std::string allow_root = "--allow-run-as-root";  // a named string: GCC 12 warns falsely on the literal
  if (launch.as_root) argv.push_back(allow_root);
  std::istringstream extra(launch.extra_mpirun_arguments);
  for (std::string word; extra >> word;) argv.push_back(word);
  if (launch.board_of_rank.empty()) {
    argv.push_back(launch.tpu_path);
    argv.insert(argv.end(), launch.tpu_arguments.begin(), launch.tpu_arguments.end());
    return argv;
  }
  argv[2] = std::to_string(1);  // -n 1 per rank, each with its own board
  for (size_t rank = 0; rank < launch.board_of_rank.size(); ++rank) {
    if (rank > 0) argv.insert(argv.end(), {":", "-n", "1"});
    argv.push_back(launch.tpu_path);
    const std::vector<std::string> arguments = with_board(launch.tpu_arguments, launch.board_of_rank[rank]);
    argv.insert(argv.end(), arguments.begin(), arguments.end());
  }
  return argv;
}

std::vector<std::string> with_board(const std::vector<std::string>& arguments, const std::string& board) {
  std::vector<std::string> out = arguments;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == "--board" && i + 1 < out.size()) out[i + 1] = board;
    if (out[i].starts_with("--board=")) out[i] = "--board=" + board;
  }
  return out;
}

}  // namespace tpu
