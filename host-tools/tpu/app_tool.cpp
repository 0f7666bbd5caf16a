// Replacing tpu with the app's own tool (app_tool.hpp).
#include "app_tool.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "host-tools/lib/board/make_driver.hpp"
#include "run_report.hpp"

namespace tpu {
namespace {

bool is_this_program(const std::filesystem::path& program) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::canonical("/proc/self/exe", error);
  return !error && std::filesystem::equivalent(self, program, error);
}

}  // namespace

std::optional<int> hand_over_to_app_tool(const std::filesystem::path& root, const std::string& app,
                                                 const std::vector<std::string>& argv) {
  std::string error;
  const std::optional<std::filesystem::path> program = build_app_tool(root, app, error);
  if (!program) {
    if (error.empty()) return std::nullopt;
    std::cerr << "tpu: " << error << std::endl;
    return kExitBuildFailed;
  }
  if (is_this_program(*program)) return std::nullopt;
  std::vector<char*> words;
  const std::string path = program->string();
  words.push_back(const_cast<char*>(path.c_str()));
  for (size_t i = 1; i < argv.size(); ++i) words.push_back(const_cast<char*>(argv[i].c_str()));
  words.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  execv(path.c_str(), words.data());
  std::cerr << "tpu: cannot start " << path << ": " << std::strerror(errno) << std::endl;
  return kExitBuildFailed;
}

}  // namespace tpu
