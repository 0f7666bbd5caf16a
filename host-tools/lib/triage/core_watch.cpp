// The live view of the cores' status records (core_watch.hpp).
#include "core_watch.hpp"

#include <sys/ioctl.h>

#include <cstdio>
#include <iostream>

#include "core_diagnosis.hpp"
#include "core_triage.hpp"

namespace tpu {
namespace {

constexpr unsigned kMinConsoleRows = 6;  // rows left for the console below the view

std::string seconds_text(double seconds) { return std::to_string(static_cast<long long>(seconds)) + " s"; }

// What the view shows, without its clocks: a plain block is printed again only when this changes.
std::string picture_of(const CoreStatusRead& read) {
  std::string picture = read.problem;
  for (const CoreSnapshot& core : read.cores)
    picture += activity_phrase(core.now, core.result_code, static_cast<unsigned>(read.cores.size())) + "\n";
  return picture;
}

std::string core_line(const CoreSnapshot& core, unsigned cores, double still_s) {
  std::string line = "  core " + std::to_string(core.core) + (core.core < 10 ? "   " : "  ") +
                     activity_phrase(core.now, core.result_code, cores);
  if (still_s >= 1) line += " (" + seconds_text(still_s) + ")";
  if (!core.last_events.empty())
    line += "  last: " + core.last_events.front().name + " " + duration_text(core.last_events.front().duration_ns);
  return line;
}

}  // namespace

std::vector<std::string> watch_lines(const CoreStatusRead& read, const std::vector<double>& still_s,
                                     const std::string& board, double elapsed_s) {
  std::vector<std::string> lines;
  lines.push_back("watch: " + (board.empty() ? std::string("the board") : board) + ", " +
                  std::to_string(read.cores.size()) + " cores, " + seconds_text(elapsed_s) +
                  " into the run (read from board memory every second)");
  if (!read.problem.empty()) {
    lines.push_back("  " + read.problem);
    return lines;
  }
  const unsigned cores = static_cast<unsigned>(read.cores.size());
  for (size_t i = 0; i < read.cores.size(); ++i)
    lines.push_back(core_line(read.cores[i], cores, i < still_s.size() ? still_s[i] : 0));
  lines.push_back("  => " + diagnose(read.cores));
  return lines;
}

CoreWatch::CoreWatch(bool enabled, std::ostream& out, int terminal_fd)
    : enabled_(enabled), out_(out), terminal_fd_(terminal_fd) {
  winsize size{};
  if (enabled_ && ::isatty(terminal_fd_) && ::ioctl(terminal_fd_, TIOCGWINSZ, &size) == 0) {
    terminal_rows_ = size.ws_row;
    terminal_columns_ = size.ws_col;
  }
}

CoreWatch::~CoreWatch() {
  if (reserved_rows_ == 0) return;
  std::fflush(stdout);
  std::cout.flush();
  out_ << "\x1b[r" << "\x1b[" << terminal_rows_ << ";1H\n" << std::flush;  // whole screen; cursor to the bottom
}

void CoreWatch::tick(const BoardChannel& channel, const LinkSession& session, Clock::time_point now) {
  if (!enabled_ || now < next_ || said_unavailable_) return;
  tick(channel, session.board() ? session.board()->cores : 0, session.board() ? session.board()->board : "", now);
}

void CoreWatch::tick(const BoardChannel& channel, unsigned cores_hint, const std::string& board,
                     Clock::time_point now) {
  if (!enabled_ || now < next_ || said_unavailable_) return;
  next_ = now + kRefresh;
  const CoreStatusRead read = read_board_statuses(channel, cores_hint);
  if (channel.transport() != "shm") {  // never readable on this link: say so once
    out_ << "tpu: watch: " << read.problem << std::endl;
    said_unavailable_ = true;
    return;
  }
  if (!read.problem.empty() && !table_seen_) return;  // the board has not attached yet: nothing to show
  table_seen_ = table_seen_ || read.problem.empty();
  const double elapsed = std::chrono::duration<double>(now - started_).count();
  show(read, watch_lines(read, still_seconds(read, now), board, elapsed), picture_of(read));
}

std::vector<double> CoreWatch::still_seconds(const CoreStatusRead& read, Clock::time_point now) {
  std::vector<double> still;
  for (const CoreSnapshot& core : read.cores) {
    auto seen = seen_.find(core.core);
    if (seen == seen_.end() || seen->second.writes != core.writes)
      seen = seen_.insert_or_assign(core.core, Seen{core.writes, now}).first;
    still.push_back(std::chrono::duration<double>(now - seen->second.since).count());
  }
  return still;
}

void CoreWatch::show(const CoreStatusRead& read, const std::vector<std::string>& lines, const std::string& picture) {
  if (reserved_rows_ == 0 && read.problem.empty()) reserve_rows(lines.size());  // its height is known now
  if (reserved_rows_ != 0) {
    draw_in_place(lines);
    return;
  }
  if (picture == last_picture_) return;  // a plain block only when something changed
  last_picture_ = picture;
  for (const std::string& line : lines) out_ << "tpu: " << line << "\n";
  out_ << std::flush;
}

// Keeps the top rows for the view (one more for a rule) and lets the console scroll below them.
bool CoreWatch::reserve_rows(size_t lines) {
  if (terminal_rows_ == 0 || lines + 1 + kMinConsoleRows > terminal_rows_) return false;
  reserved_rows_ = static_cast<unsigned>(lines + 1);
  std::fflush(stdout);
  std::cout.flush();
  out_ << std::string(terminal_rows_, '\n');                       // the screen's text into the scrollback
  out_ << "\x1b[" << reserved_rows_ + 1 << ";" << terminal_rows_ << "r";  // the scrolling region
  out_ << "\x1b[" << reserved_rows_ + 1 << ";1H" << std::flush;   // the console continues below the view
  return true;
}

void CoreWatch::draw_in_place(const std::vector<std::string>& lines) {
  std::fflush(stdout);
  std::cout.flush();
  const size_t width = terminal_columns_ > 1 ? terminal_columns_ - 1 : 79;
  out_ << "\x1b" "7";  // save the cursor (it is in the console's region)
  for (unsigned row = 0; row < reserved_rows_; ++row) {
    std::string text = row + 1 == reserved_rows_ ? std::string(width, '-') : row < lines.size() ? lines[row] : "";
    if (text.size() > width) text = text.substr(0, width - 3) + "...";
    out_ << "\x1b[" << row + 1 << ";1H\x1b[2K" << text;
  }
  out_ << "\x1b" "8" << std::flush;  // back to the console
}

}  // namespace tpu
