// A pod's scratch folder and its guard (pod_scratch.hpp).
#include "pod_scratch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace tpu {
namespace {

// What ranks still ending when mpirun died may write late (a rank that outlives a killed mpirun by a
// moment): the guard looks again this long after its first removal, if that one found files.
constexpr unsigned kSecondLookS = 2;

// The guard's life: detached from the terminal (a Ctrl-C for the pod must not end it first), its
// standard streams on /dev/null (a reader of tpu's output sees its end when mpirun's comes), woken by
// the parent's death.
[[noreturn]] void guard(const std::string& folder, pid_t parent) {
  prctl(PR_SET_NAME, "tpu-pod-guard");  // what ps shows: not a rank
  setsid();
  const int null = open("/dev/null", O_RDWR);
  for (int stream = 0; stream <= 2; ++stream) dup2(null, stream);
  for (int fd = 3; fd < 1024; ++fd) close(fd);
  sigset_t death;
  sigemptyset(&death);
  sigaddset(&death, SIGUSR1);
  sigprocmask(SIG_BLOCK, &death, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGUSR1);
  if (getppid() == parent) {  // else the parent already ended, before the death signal was set
    int signal_number = 0;
    sigwait(&death, &signal_number);
  }
  std::error_code ignored;
  const bool had_files = !std::filesystem::is_empty(folder, ignored) && !ignored;
  remove_pod_scratch(folder);
  if (had_files) {
    sleep(kSecondLookS);
    remove_pod_scratch(folder);
  }
  _exit(0);
}

}  // namespace

std::optional<std::string> make_pod_scratch(std::string& error) {
  char name[] = "/dev/shm/tpu-pod-XXXXXX";
  if (mkdtemp(name) == nullptr) {
    error = std::string("cannot make the pod's scratch folder in /dev/shm: ") + std::strerror(errno);
    return std::nullopt;
  }
  return std::string(name);
}

bool guard_pod_scratch(const std::string& folder) {
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) guard(folder, parent);
  if (child > 0) return true;
  const int fork_error = errno;
  remove_pod_scratch(folder);
  errno = fork_error;  // the caller says why
  return false;
}

void remove_pod_scratch(const std::string& folder) {
  std::error_code ignored;
  std::filesystem::remove_all(folder, ignored);
}

}  // namespace tpu
