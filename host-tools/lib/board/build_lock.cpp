// The repository's build lock (see build_lock.hpp).
#include "build_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

namespace tpu {

BuildLock::BuildLock(const std::filesystem::path& root, std::ostream& notes, std::chrono::milliseconds quiet) {
  const std::filesystem::path folder = root / "build";
  std::error_code ignored;
  std::filesystem::create_directories(folder, ignored);
  const std::filesystem::path file = folder / ".tpu-build.lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return;
  const auto quiet_until = std::chrono::steady_clock::now() + quiet;
  while (std::chrono::steady_clock::now() < quiet_until) {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    ::usleep(10000);
  }
  notes << "tpu: waiting for another tpu's build in this repository to finish (" << file.string() << ")" << std::endl;
  while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
  }
}

BuildLock::~BuildLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace tpu
