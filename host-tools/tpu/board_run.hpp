// One board's run under `tpu run`, alone or as a pod's rank: the board started (built and launched,
// or attached to, its image sent through the UART chainloader first with --chainboot), then served
// until it ends (its console, host functions in tpu and in the app's worker process, infeed,
// outfeed, trace, and a pod's collectives across boards), and the run's exit status (run.hpp).
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "run.hpp"
#include "run_pod.hpp"

namespace tpu {

inline constexpr const char* kChainloaderBoard = "raspi3b";  // the one board with a UART chainloader (boards/raspi3b/chainloader)

// What a run runs: an app (built for `board`) or an image file.
struct Target {
  std::string board;
  std::string app;                             // an app's name or its folder's absolute path; empty for an image
  std::optional<std::filesystem::path> image;  // set for an image path
};

// Serves one board (a pod's rank serves its own as task `place.task`) and returns the run's exit status.
int serve_board(const std::filesystem::path& root, const RunOptions& options, const std::optional<Target>& target,
                const PodPlace& place);

}  // namespace tpu
