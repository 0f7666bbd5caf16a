// `tpu run` (run.hpp): what to run (an app, an app's folder or an image), then one board served
// here or a pod of boards under Open MPI (run_pod.hpp), each board served by board_run.hpp.
#include "run.hpp"

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <vector>

#include "app_tool.hpp"
#include "board_run.hpp"
#include "host-tools/lib/board/make_driver.hpp"
#include "run_pod.hpp"
#include "run_report.hpp"

namespace tpu {
namespace {

bool looks_like_path(const std::string& target) {
  std::error_code ignored;
  return target.find('/') != std::string::npos || target.ends_with(".elf") ||
         std::filesystem::is_regular_file(target, ignored);
}


std::optional<Target> resolve_target(const std::filesystem::path& root, const RunOptions& options) {
  Target target;
  std::error_code error;
  if (std::filesystem::is_directory(options.target, error)) {  // an app folder, anywhere
    target.board = options.board.value_or("qemu-virt-a53");
    target.app = std::filesystem::absolute(options.target, error).lexically_normal().string();
    // Said once: the app's own tool, which tpu hands the run to, resolves the target again.
    if (options.target.find('/') == std::string::npos && !std::getenv("TPU_TARGET_NOTED") &&
        names_a_repository_app(root, options.target)) {
      std::cerr << "tpu: " << options.target << " is the folder " << target.app << " here, not the repository's app "
                << options.target << " (run it from another folder to mean that one)" << std::endl;
      setenv("TPU_TARGET_NOTED", "1", 1);
    }
    return target;
  }
  if (!looks_like_path(options.target)) {
    target.board = options.board.value_or("qemu-virt-a53");
    target.app = options.target;
    return target;
  }
  const std::filesystem::path image = std::filesystem::absolute(options.target, error);
  if (error || !std::filesystem::is_regular_file(image, error)) {
    std::cerr << "tpu: " << (std::filesystem::exists(image, error) ? "no app and no firmware image at " : "nothing at ")
              << options.target << " (tpu run takes an app folder, a repository app's name or a firmware image)"
              << std::endl;
    return std::nullopt;
  }
  target.image = image;
  std::string problem;
  const std::optional<std::string> built_for = board_of_image(image, problem);
  if (!built_for) {
    std::cerr << "tpu: " << problem << std::endl;
    return std::nullopt;
  }
  if (options.board && *options.board != *built_for) {
    std::cerr << "tpu: " << image.string() << " was built for " << *built_for << ", not for --board " << *options.board
              << std::endl;
    return std::nullopt;
  }
  target.board = *built_for;
  return target;
}

}  // namespace

std::string add_infeed_option(RunOptions& options, const std::string& value) {
  std::string error;
  std::optional<InfeedFiles> spec = parse_infeed_files(value, error);
  if (!spec) return error;
  for (const InfeedFiles& other : options.infeed)
    if (other.queue == spec->queue) return "--infeed names queue " + std::to_string(spec->queue) + " twice";
  options.infeed.push_back(std::move(*spec));
  return "";
}

namespace {

// What a pod's ranks compare and how each builds: the image a target names (an image path builds
// nothing).
PodRun pod_run(const std::filesystem::path& root, const RunOptions& options, const Target& target) {
  PodRun run;
  run.board = target.board;
  run.target = target.image ? target.image->string() : target.app;
  run.build = [root, target, cores = options.cores,
               attaching = options.attach.any() && !options.chainboot](const std::string& board) {
    std::string error = core_count_refusal(root, board, cores);  // before anything is built
    if (error.empty() && !target.image && !attaching) error = build_image(root, board, target.app);
    if (!error.empty()) std::cerr << "tpu: " << error << std::endl;
    return error.empty();
  };
  run.serve = [root, &options, target](PodPlace place) { return serve_board(root, options, target, place); };
  return run;
}

}  // namespace

int run_board(const RunOptions& given) {
  RunOptions options = given;
  // --board a,b: a pod of different kinds, one board per rank (--boards, if given, must agree).
  std::vector<std::string> kinds;
  if (options.board && options.board->find(',') != std::string::npos) {
    kinds = boards_of_list(*options.board);
    if (options.boards != 0 && options.boards != kinds.size()) {
      std::cerr << "tpu: --board names " << kinds.size() << " boards, --boards says " << options.boards << std::endl;
      return kExitBuildFailed;
    }
    options.boards = static_cast<unsigned>(kinds.size());
    options.board = kinds[0];
  }
  if (options.link == LinkChoice::kShm && options.attach.any()) {
    std::cerr << "tpu: --link shm needs a board tpu launches (QEMU or the host board): a board attached to with "
              << (options.attach.serial ? "--serial" : "--socket") << " has only its serial line (--link uart)"
              << std::endl;
    return kExitBuildFailed;
  }
  if (options.chainboot && (!options.attach.any() || options.board != kChainloaderBoard)) {
    std::cerr << "tpu: --chainboot sends the image to a raspi3b's UART chainloader: it needs --board raspi3b and "
                 "--serial DEV or --socket PATH"
              << std::endl;
    return kExitBuildFailed;
  }
  const std::optional<std::filesystem::path> root = find_repository_root();
  if (!root) {
    std::cerr << "tpu: cannot find the project (a directory with the Makefile and boards/): run tpu from it" << std::endl;
    return kExitBuildFailed;
  }
  const std::optional<Target> target = options.target.empty() ? std::nullopt : resolve_target(*root, options);
  if (!options.target.empty() && !target) return kExitBuildFailed;
  if (target && !target->app.empty())  // an app with a host half runs under its own tool
    if (const std::optional<int> status = hand_over_to_app_tool(*root, target->app, options.argv)) return *status;
  std::string pod_error;
  const std::optional<PodRank> rank = detect_pod_rank(pod_error);
  if (!pod_error.empty()) {
    std::cerr << "tpu: " << pod_error << std::endl;
    return kExitBuildFailed;
  }
  if ((rank || options.boards > 1) && !target) {
    std::cerr << "tpu: a pod of boards runs an app or an image: name it" << std::endl;
    return kExitBuildFailed;
  }
  if (rank) return run_pod_rank(options, *rank, pod_run(*root, options, *target));
  if (options.boards > 1) {
    PodRun run = pod_run(*root, options, *target);
    run.board_of_rank = kinds;
    return launch_pod(options, run);
  }
  return serve_board(*root, options, target, PodPlace{});
}

}  // namespace tpu
