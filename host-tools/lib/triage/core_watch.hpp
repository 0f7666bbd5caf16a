// `tpu run --watch`: the hang triage (core_triage.hpp) live, read from board memory once a second,
// in the spirit of tt-metal's watcher but with no firmware help beyond the status records the
// runtime writes anyway. On a terminal the view keeps the top rows (a title, one line per core with
// how long its record has not changed and its last trace event, the diagnosis) while the console
// scrolls below it; anywhere else (a pipe, a file, a terminal too small) it prints the same lines
// as a block whenever the picture changes. On a link without board memory it says so once.
#pragma once
#include <unistd.h>

#include <chrono>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "host-tools/lib/board/board_channel.hpp"
#include "core_status_reader.hpp"
#include "host-tools/lib/session/link_session.hpp"

namespace tpu {

class CoreWatch {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kRefresh{1000};

  // Does nothing unless `enabled` (--watch). Draws on `out`, which is the terminal `terminal_fd`.
  CoreWatch(bool enabled, std::ostream& out, int terminal_fd = STDERR_FILENO);
  ~CoreWatch();  // gives the terminal its whole screen back
  CoreWatch(const CoreWatch&) = delete;
  CoreWatch& operator=(const CoreWatch&) = delete;

  // Reads and redraws if a refresh is due (the board's name and core count from its hello, if any).
  void tick(const BoardChannel& channel, const LinkSession& session, Clock::time_point now = Clock::now());
  void tick(const BoardChannel& channel, unsigned cores_hint, const std::string& board, Clock::time_point now);

 private:
  void show(const CoreStatusRead& read, const std::vector<std::string>& lines, const std::string& picture);
  bool reserve_rows(size_t lines);
  void draw_in_place(const std::vector<std::string>& lines);
  std::vector<double> still_seconds(const CoreStatusRead& read, Clock::time_point now);

  bool enabled_;
  std::ostream& out_;
  int terminal_fd_;
  Clock::time_point started_ = Clock::now();
  Clock::time_point next_{};  // the first tick draws
  bool said_unavailable_ = false;
  bool table_seen_ = false;  // problems are shown only once a table was read (before, the board is booting)
  std::string last_picture_;
  unsigned reserved_rows_ = 0;  // rows of the fixed view at the top (0: plain blocks)
  unsigned terminal_rows_ = 0;
  unsigned terminal_columns_ = 0;
  struct Seen {
    uint32_t writes;
    Clock::time_point since;
  };
  std::map<unsigned, Seen> seen_;  // per core: its record's update count and since when
};

// The view's lines for one reading: a title, one line per core (`still_s[i]`: seconds core i's
// record has not changed), the diagnosis.
std::vector<std::string> watch_lines(const CoreStatusRead& read, const std::vector<double>& still_s,
                                     const std::string& board, double elapsed_s);

}  // namespace tpu
