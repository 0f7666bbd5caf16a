// Getting a channel to a board for one session: either build the app's image and launch it the way
// `make run` would (QEMU, or the host board's process; the command line comes from
// `make print-run-command`), or attach to a running board over a serial device or a Unix socket
// (board_attach.hpp). Also the signal handling a session needs (Ctrl-C stops the board, SIGPIPE
// is not fatal).
#pragma once
#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "board_channel.hpp"

namespace tpu {

// Which transport carries the link frames of a launched board (--link): shared memory where the
// board has a window (the QEMU boards), the UART otherwise; or either one forced.
enum class LinkChoice { kAuto, kUart, kShm };

// "auto", "uart", "shm" -> the choice; nothing for anything else.
std::optional<LinkChoice> parse_link_choice(const std::string& text);

struct BoardTarget {
  std::string board = "qemu-virt-a53";
  std::string app;                             // built with make image (empty with an image path)
  std::optional<std::filesystem::path> image;  // an ELF to run instead of an app
  unsigned cores = 0;  // 0: the board's default (8; raspi3b 4)
  LinkChoice link = LinkChoice::kAuto;
};

struct AttachTarget {
  std::optional<std::string> serial;  // a serial device (--serial)
  std::optional<std::string> socket;  // a Unix socket (--socket)
  unsigned baud = 115200;

  bool any() const { return serial || socket; }
};

// Why `board` cannot boot `cores` cores (its board.mk's BOARD_CORES_VALID), or "" (0: its default).
// Asked before anything is built.
std::string core_count_refusal(const std::filesystem::path& root, const std::string& board, unsigned cores);

// Launches (building first) or attaches; prints the command it runs on `notes`. Nothing with `error`.
// A launched board with a shared-memory window gets its link there unless target.link says uart.
std::unique_ptr<BoardChannel> open_board(const std::filesystem::path& root, const BoardTarget& target,
                                         const AttachTarget& attach, std::ostream& notes, std::string& error);

// Points the channel's frame receiver (shared memory) at the session, so frames reach it either way.
class LinkSession;
void connect_frames(BoardChannel& channel, LinkSession& session);

// Installs SIGINT/SIGTERM handlers that set the returned flag to the signal's number, and ignores
// SIGPIPE. Call after the make steps (children must not inherit an ignored SIGPIPE).
const volatile std::sig_atomic_t* install_interrupt_handlers();

// The exit status of a run a signal ended (the shell's 128 + its number: 130 for SIGINT, 143 for SIGTERM).
inline int interrupted_exit_status(std::sig_atomic_t signal_number) { return 128 + signal_number; }

}  // namespace tpu
