// One build at a time per repository for the builds tpu starts (make image, app-tool,
// boot-image): two `tpu run` or `tpu exec` of the same app started together would otherwise rebuild
// the same objects, archives and images at once and read each other's half-written files. The lock
// is an flock(2) on build/.tpu-build.lock under the repository root, released when the holder
// ends (even if it is killed), so a crashed tpu never leaves it held.
#pragma once
#include <chrono>
#include <filesystem>
#include <ostream>

namespace tpu {

class BuildLock {
 public:
  static constexpr std::chrono::milliseconds kQuietWait{2000};

  // Takes the lock, saying on `notes` that it waits if another tpu has held it for `quiet` (a
  // holder that finds nothing to build, as a pod's ranks taking turns usually do, lets go sooner).
  // If the lock file cannot be created (a read-only tree), the build goes ahead unlocked: make then
  // reports the problem.
  BuildLock(const std::filesystem::path& root, std::ostream& notes, std::chrono::milliseconds quiet = kQuietWait);
  ~BuildLock();
  BuildLock(const BuildLock&) = delete;
  BuildLock& operator=(const BuildLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace tpu
