// The board's console text on our stdout a whole line at a time. With the shared-memory link the
// console (UART) and the frames (memory) arrive separately, so a host function's own output could
// land in the middle of a console line; holding a partial line until its newline keeps lines whole.
// A partial line that stays partial (a prompt) is printed after kHoldFor. An annotator may add a
// line of its own after any console line (tpu names a fault report's pc by function and line).
#pragma once
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tpu {

class ConsolePrinter {
 public:
  static constexpr std::chrono::milliseconds kHoldFor{200};
  using Clock = std::chrono::steady_clock;

  explicit ConsolePrinter(std::FILE* out = stdout) : out_(out) {}
  // Every line printed from now on starts with `prefix` (a pod's rank: "[task 1] ").
  void set_line_prefix(std::string prefix) { line_prefix_ = std::move(prefix); }
  // Asked with every whole console line (without its newline); what it returns is printed after it.
  using Annotator = std::function<std::optional<std::string>(std::string_view line)>;
  void set_annotator(Annotator annotator) { annotator_ = std::move(annotator); }
  // Prints every complete line of held + text now and holds the rest.
  void add(std::string_view text, Clock::time_point now = Clock::now());
  // Prints a partial line held for longer than kHoldFor.
  void flush_stale(Clock::time_point now = Clock::now());
  void flush();

 private:
  void write(std::string_view text);

  std::FILE* out_;
  std::string line_prefix_;
  Annotator annotator_;
  std::string line_;  // the console line being written, for the annotator
  bool at_line_start_ = true;
  std::string held_;
  Clock::time_point held_since_;
};

}  // namespace tpu
