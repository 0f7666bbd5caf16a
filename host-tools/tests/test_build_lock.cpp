// The repository's build lock (host-tools/lib/board/build_lock.hpp): it waits for another holder,
// and says so only when that holder keeps it longer than the quiet wait (a pod's ranks take it in
// turns and usually find nothing to build).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>

#include "host-tools/lib/board/build_lock.hpp"
#include "scratch_directory.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// A child process holding the lock of `root` for `hold`; returns once it holds it.
pid_t hold_lock_in_child(const std::filesystem::path& root, std::chrono::milliseconds hold) {
  std::filesystem::create_directories(root / "build");
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int fd = ::open((root / "build" / ".tpu-build.lock").c_str(), O_RDWR | O_CREAT, 0644);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0) ::_exit(1);
    const char byte = 1;
    if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
    ::usleep(static_cast<useconds_t>(hold.count() * 1000));
    ::_exit(0);
  }
  ::close(ready[1]);
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  return child;
}

// Takes the lock while a child holds it for `hold`: (the note written, the seconds waited).
std::pair<std::string, double> take_while_held(std::chrono::milliseconds hold, std::chrono::milliseconds quiet) {
  ScratchDirectory root("build-lock");
  const pid_t child = hold_lock_in_child(root.path(), hold);
  std::ostringstream notes;
  const Clock::time_point start = Clock::now();
  { tpu::BuildLock lock(root.path(), notes, quiet); }
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  return {notes.str(), waited};
}

}  // namespace

TEST_CASE("the build lock waits for its holder, quietly when the holder lets go soon", "[build-lock]") {
  using std::chrono::milliseconds;
  const auto [brief_note, brief_wait] = take_while_held(milliseconds(100), milliseconds(5000));
  CHECK(brief_note.empty());
  CHECK(brief_wait >= 0.05);  // it did wait for the holder
  const auto [long_note, long_wait] = take_while_held(milliseconds(800), milliseconds(200));
  CHECK(long_note.find("tpu: waiting for another tpu's build in this repository to finish") != std::string::npos);
  CHECK(long_wait >= 0.7);
}

TEST_CASE("a free build lock is taken without a note", "[build-lock]") {
  ScratchDirectory root("build-lock");
  std::ostringstream notes;
  { tpu::BuildLock lock(root.path(), notes); }
  CHECK(notes.str().empty());
}
