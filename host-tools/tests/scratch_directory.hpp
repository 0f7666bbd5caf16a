// Test helper: a directory of the test's own under the system's temporary directory, unique to the
// process (two test programs may run at once), removed with everything in it when the test ends,
// however it ends (a failed REQUIRE unwinds through it too).
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

class ScratchDirectory {
 public:
  explicit ScratchDirectory(const std::string& purpose) {
    std::string pattern = (std::filesystem::temp_directory_path() / ("tpu-" + purpose + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot make a scratch directory " + pattern);
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};
