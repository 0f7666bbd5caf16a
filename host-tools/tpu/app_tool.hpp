// Handing a run to the app's own tool: an app with a host half (<app>/host/*.cpp) is served
// by a tpu built with its host functions (make app-tool), so `tpu run <app>` builds that program
// and replaces itself with it, same arguments. The app's program, asked the same, runs the app.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tpu {

// Nothing if this process should serve `app` itself (no host half, or it is the app's program);
// otherwise execs the app's program with `argv` (no return) or returns an exit status after
// printing why the program could not be built or started.
std::optional<int> hand_over_to_app_tool(const std::filesystem::path& root, const std::string& app,
                                                 const std::vector<std::string>& argv);

}  // namespace tpu
