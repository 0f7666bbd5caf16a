// `tpu console`: options, the terminal loop between the user and a board's console (console.hpp).
#include "console.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <string>

#include "host-tools/lib/board/board_launch.hpp"
#include "host-tools/lib/cli/cli_args.hpp"
#include "host-tools/lib/board/make_driver.hpp"
#include "host-tools/lib/console/raw_terminal.hpp"

namespace tpu {

namespace {

constexpr char kQuitKey = 0x1d;  // Ctrl-]
constexpr std::string_view kPrompt = "tpu> ";
constexpr std::string_view kRebootNotice = "reboot: ";
constexpr auto kQuietEnd = std::chrono::milliseconds(2000);
constexpr auto kExitGrace = std::chrono::milliseconds(5000);
constexpr int kExitUsage = 2;
constexpr int kMaxReboots = 20;

// Piped input not yet sent to a board: kept from one boot to the next, so the lines after a
// `reboot` go to the board that comes up again.
struct PipedInput {
  std::string lines;
  bool ended = false;  // stdin reached its end
};

// One board session: the user's input to the board, the board's console to stdout.
class ConsoleSession {
 public:
  // `piped`: nullptr on a terminal (keys go to the board as typed).
  ConsoleSession(BoardChannel& board, PipedInput* piped) : board_(board), piped_(piped) {}

  enum class End { kBoardEnded, kQuit, kInputDoneAndQuiet, kTimedOut, kInterrupted };

  End run(std::chrono::steady_clock::time_point deadline, const volatile std::sig_atomic_t* interrupted) {
    auto last_output = std::chrono::steady_clock::now();
    std::vector<uint8_t> bytes;
    for (;;) {
      if (interrupted && *interrupted) return End::kInterrupted;
      if (std::chrono::steady_clock::now() >= deadline) return End::kTimedOut;
      if (piped_ ? forward_piped_line() : forward_keys()) return End::kQuit;
      const bool open = board_.pump(std::chrono::milliseconds(20), bytes);
      if (!bytes.empty()) last_output = std::chrono::steady_clock::now();
      show(bytes);
      bytes.clear();
      if (!open) return End::kBoardEnded;
      if (input_done() && std::chrono::steady_clock::now() - last_output > kQuietEnd)
        return End::kInputDoneAndQuiet;
    }
  }

  bool reboot_requested() const { return output_.find(kRebootNotice) != std::string::npos; }

 private:
  // Piped input is done once every line is sent and the board has shown its prompt (a board still
  // booting may be quiet for a while).
  bool input_done() const {
    if (!piped_) return keys_ended_;
    return piped_->ended && piped_->lines.empty() && output_.find(kPrompt) != std::string::npos;
  }

  // Reads what stdin holds now (without waiting) into `into`; false once it has ended.
  static bool read_available(std::string& into) {
    pollfd ready{STDIN_FILENO, POLLIN, 0};
    while (poll(&ready, 1, 0) > 0) {
      char buffer[4096];
      const ssize_t got = read(STDIN_FILENO, buffer, sizeof buffer);
      if (got <= 0) return false;
      into.append(buffer, static_cast<size_t>(got));
    }
    return true;
  }

  // On a terminal: sends what the user typed; true if the user asked to quit (Ctrl-]).
  bool forward_keys() {
    if (keys_ended_) return false;
    std::string keys;
    keys_ended_ = !read_available(keys);
    const size_t quit = keys.find(kQuitKey);
    board_.send(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(keys.data()), std::min(quit, keys.size())));
    return quit != std::string::npos;
  }

  // Piped input: one line each time the board shows a new prompt, as a user types at it.
  bool forward_piped_line() {
    if (!piped_->ended) piped_->ended = !read_available(piped_->lines);
    if (piped_->lines.empty()) return false;
    const size_t prompt = output_.find(kPrompt, unanswered_from_);
    const size_t end_of_line = piped_->lines.find('\n');
    if (prompt == std::string::npos || (end_of_line == std::string::npos && !piped_->ended)) return false;
    unanswered_from_ = prompt + kPrompt.size();
    const size_t length = end_of_line == std::string::npos ? piped_->lines.size() : end_of_line + 1;
    board_.send(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(piped_->lines.data()), length));
    piped_->lines.erase(0, length);
    return false;
  }

  // Console text to stdout; link frames (0x00-delimited) are not for the user and are dropped.
  void show(const std::vector<uint8_t>& bytes) {
    std::string text;
    for (const uint8_t byte : bytes) {
      if (byte == 0) in_frame_ = !in_frame_;
      else if (!in_frame_) text += static_cast<char>(byte);
    }
    if (text.empty()) return;
    output_ += text;
    if (output_.size() > 65536) {
      const size_t dropped = output_.size() - 4096;
      output_.erase(0, dropped);
      unanswered_from_ = unanswered_from_ > dropped ? unanswered_from_ - dropped : 0;
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }

  BoardChannel& board_;
  PipedInput* piped_;
  bool keys_ended_ = false;
  bool in_frame_ = false;
  std::string output_;
  size_t unanswered_from_ = 0;  // output_ before this holds no prompt a piped line has not answered
};

}  // namespace

int console_run(const ConsoleOptions& given) {
  const ConsoleOptions* options = &given;
  const std::optional<std::filesystem::path> root = find_repository_root();
  if (!root && !options->attach.any()) {
    std::cerr << "tpu console: cannot find the project (a directory with the Makefile and boards/)" << std::endl;
    return kExitUsage;
  }
  const auto deadline = deadline_after_seconds(options->timeout_s);
  PipedInput piped;
  for (int boots = 0;; ++boots) {
    std::string error;
    std::unique_ptr<BoardChannel> board = open_board(root.value_or("."), options->target, options->attach, std::cerr, error);
    if (!board) {
      std::cerr << "tpu console: " << error << std::endl;
      return kExitUsage;
    }
    const volatile std::sig_atomic_t* interrupted = install_interrupt_handlers();
    RawTerminal terminal;
    if (terminal.active()) std::cerr << "tpu console: connected to " << board->name() << "; Ctrl-] quits\r" << std::endl;
    ConsoleSession session(*board, terminal.active() ? nullptr : &piped);
    const ConsoleSession::End end = session.run(deadline, interrupted);
    if (end == ConsoleSession::End::kTimedOut) std::cerr << "\ntpu console: timed out" << std::endl;
    const std::optional<int> exit_code = board->launched() && end == ConsoleSession::End::kBoardEnded
                                             ? board->wait_for_exit(kExitGrace)
                                             : std::nullopt;
    board->kill();
    if (end == ConsoleSession::End::kBoardEnded && board->launched() && session.reboot_requested() && boots < kMaxReboots) {
      std::cerr << "tpu console: the board rebooted; starting it again" << std::endl;
      continue;
    }
    if (end == ConsoleSession::End::kTimedOut) return 4;
    if (end == ConsoleSession::End::kInterrupted) return interrupted_exit_status(*interrupted);
    return exit_code.value_or(0);
  }
}

}  // namespace tpu
