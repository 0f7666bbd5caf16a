// `tpu console`: options, the terminal loop between the user and a board's console (console.hpp).
#include "console.hpp"

#include <poll.h>
#include <unistd.h>

#include <iostream>

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

// One board session: the user's input to the board, the board's console to stdout.
class ConsoleSession {
 public:
  ConsoleSession(BoardChannel& board, bool interactive) : board_(board), interactive_(interactive) {}

  enum class End { kBoardEnded, kQuit, kInputDoneAndQuiet, kTimedOut, kInterrupted };

  End run(std::chrono::steady_clock::time_point deadline, const volatile std::sig_atomic_t* interrupted) {
    auto last_output = std::chrono::steady_clock::now();
    std::vector<uint8_t> bytes;
    for (;;) {
      if (interrupted && *interrupted) return End::kInterrupted;
      if (std::chrono::steady_clock::now() >= deadline) return End::kTimedOut;
      if (forward_input()) return End::kQuit;
      const bool open = board_.pump(std::chrono::milliseconds(20), bytes);
      if (!bytes.empty()) last_output = std::chrono::steady_clock::now();
      show(bytes);
      bytes.clear();
      if (!open) return End::kBoardEnded;
      if (input_done_ && std::chrono::steady_clock::now() - last_output > kQuietEnd)
        return End::kInputDoneAndQuiet;
    }
  }

  bool reboot_requested() const { return output_.find(kRebootNotice) != std::string::npos; }

 private:
  // Reads what the user typed and sends it on; true if the user asked to quit.
  bool forward_input() {
    if (input_done_ || (!interactive_ && output_.find(kPrompt) == std::string::npos)) return false;
    pollfd ready{STDIN_FILENO, POLLIN, 0};
    if (poll(&ready, 1, 0) <= 0) return false;
    uint8_t buffer[4096];
    const ssize_t got = read(STDIN_FILENO, buffer, sizeof buffer);
    if (got <= 0) {
      input_done_ = true;  // end of piped input: keep showing the board until it ends
      return false;
    }
    std::vector<uint8_t> keys(buffer, buffer + got);
    for (size_t i = 0; i < keys.size(); ++i)
      if (interactive_ && keys[i] == kQuitKey) {
        board_.send(std::span<const uint8_t>(keys.data(), i));
        return true;
      }
    board_.send(keys);
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
    if (output_.size() > 65536) output_.erase(0, output_.size() - 4096);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }

  BoardChannel& board_;
  bool interactive_;
  bool input_done_ = false;
  bool in_frame_ = false;
  std::string output_;
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
    ConsoleSession session(*board, terminal.active());
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
    if (end == ConsoleSession::End::kInterrupted) return 130;
    return exit_code.value_or(0);
  }
}

}  // namespace tpu
