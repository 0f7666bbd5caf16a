// A pod's scratch folder (host-tools/lib/pod/pod_scratch.hpp): mpirun is told to keep Open MPI's
// files there, and the guard removes the folder once the process that forked it has ended, even by
// SIGKILL. The case of a real mpirun killed is tpu-pod/mpirun-killed in make test.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "host-tools/lib/pod/pod_launcher.hpp"
#include "host-tools/lib/pod/pod_scratch.hpp"

namespace {

// Whether `folder` is gone within `seconds`.
bool gone_within(const std::string& folder, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::filesystem::exists(folder)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// A folder with a file in it, as Open MPI leaves one.
std::string scratch_with_a_file() {
  std::string error;
  const std::optional<std::string> folder = tpu::make_pod_scratch(error);
  REQUIRE(folder.has_value());
  CHECK(folder->rfind("/dev/shm/tpu-pod-", 0) == 0);
  std::ofstream(*folder + "/vader_segment.test.0") << "segment";
  return *folder;
}

// Forks a process that starts the guard of `folder`, then ends as `end` says; returns its exit status.
template <class End>
int guard_then(const std::string& folder, End end) {
  const pid_t child = fork();
  if (child == 0) {
    if (!tpu::guard_pod_scratch(folder)) _exit(3);
    end();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return status;
}

}  // namespace

TEST_CASE("a pod's scratch folder holds Open MPI's session directory and shared-memory segments", "[pod]") {
  tpu::PodLaunch launch;
  launch.tpu_path = "/t/tpu";
  launch.tpu_arguments = {"run", "pod"};
  const std::vector<std::string> plain = tpu::mpirun_command(launch);
  launch.scratch_folder = "/dev/shm/tpu-pod-abc123";
  const std::vector<std::string> command = tpu::mpirun_command(launch);
  const std::vector<std::string> flags = {"--mca", "orte_tmpdir_base", "/dev/shm/tpu-pod-abc123",
                                          "--mca", "btl_vader_backing_directory", "/dev/shm/tpu-pod-abc123"};
  CHECK(std::search(command.begin(), command.end(), flags.begin(), flags.end()) != command.end());
  CHECK(command.size() == plain.size() + flags.size());
  CHECK(command.back() == "pod");
  CHECK(std::find(plain.begin(), plain.end(), "orte_tmpdir_base") == plain.end());  // no folder: Open MPI's defaults
}

TEST_CASE("the guard removes the scratch folder once its parent ended, even killed", "[pod]") {
  SECTION("the parent exits") {
    const std::string folder = scratch_with_a_file();
    CHECK(WEXITSTATUS(guard_then(folder, [] {})) == 0);
    CHECK(gone_within(folder, 5));
  }
  SECTION("the parent is killed with SIGKILL while the folder is in use") {
    const std::string folder = scratch_with_a_file();
    const int status = guard_then(folder, [] { raise(SIGKILL); });
    CHECK(WIFSIGNALED(status));
    CHECK(gone_within(folder, 5));
  }
  SECTION("the parent lives: the folder stays") {
    const std::string folder = scratch_with_a_file();
    const pid_t child = fork();
    if (child == 0) {
      if (!tpu::guard_pod_scratch(folder)) _exit(3);
      pause();  // until killed below
      _exit(0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK(std::filesystem::exists(folder + "/vader_segment.test.0"));
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    CHECK(gone_within(folder, 5));
  }
}
