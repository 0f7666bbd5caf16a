// The last lines of the board's console text, kept to quote when a run ends badly (the board died,
// timed out). Control characters other than tab are shown as \xNN, since a broken board can print
// anything.
#pragma once
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace tpu {

class ConsoleTail {
 public:
  explicit ConsoleTail(size_t max_lines = 20) : max_lines_(max_lines) {}
  void add(std::string_view text);
  // The kept lines, oldest first; an unfinished last line included.
  std::vector<std::string> lines() const;

 private:
  size_t max_lines_;
  std::deque<std::string> lines_;
  std::string current_;
};

}  // namespace tpu
