// Launching or attaching to a board (board_launch.hpp).
#include "board_launch.hpp"

#include <algorithm>

#include <ostream>

#include "board_attach.hpp"
#include "host-tools/lib/session/link_session.hpp"
#include "make_driver.hpp"
#include "shm_board_channel.hpp"

namespace tpu {
namespace {

constexpr auto kSocketPatience = std::chrono::milliseconds(10000);

volatile std::sig_atomic_t interrupted = 0;

void on_interrupt(int signal_number) { interrupted = signal_number; }

std::unique_ptr<BoardChannel> attach(const AttachTarget& attach, std::ostream& notes, std::string& error) {
  if (attach.serial) {
    notes << "tpu: attaching to " << *attach.serial << " at " << attach.baud << " baud" << std::endl;
    return attach_serial(*attach.serial, attach.baud, error);
  }
  notes << "tpu: attaching to the socket " << *attach.socket << std::endl;
  return attach_socket(*attach.socket, kSocketPatience, error);
}

// The shared-memory link for a launched board, if it gets one: nothing and no error for a board
// without a window (or --link uart); an error if shm was asked for and cannot be had.
std::unique_ptr<ShmLink> make_shm_link(const std::filesystem::path& root, const BoardTarget& target, std::string& error) {
  if (target.link == LinkChoice::kUart) return nullptr;
  const std::optional<std::string> text = link_layout_text(root, target.board, error);
  if (!text) return nullptr;
  const std::optional<ShmLayout> layout = parse_shm_layout(*text);
  if (!layout) {
    error = "`make print-link-layout BOARD=" + target.board + "` printed '" + *text + "', not a window layout";
    return nullptr;
  }
  if (layout->window_bytes == 0) {
    if (target.link == LinkChoice::kShm)
      error = "board " + target.board + " has no shared-memory link window (use --link uart)";
    return nullptr;
  }
  return ShmLink::create(*layout, error);
}

}  // namespace

std::optional<LinkChoice> parse_link_choice(const std::string& text) {
  if (text == "auto") return LinkChoice::kAuto;
  if (text == "uart") return LinkChoice::kUart;
  if (text == "shm") return LinkChoice::kShm;
  return std::nullopt;
}

std::string core_count_refusal(const std::filesystem::path& root, const std::string& board, unsigned cores) {
  if (cores == 0) return "";
  std::string error;
  const std::optional<std::vector<unsigned>> valid = valid_core_counts(root, board, error);
  if (!valid) return error;
  if (std::find(valid->begin(), valid->end(), cores) != valid->end()) return "";
  std::string list;
  for (const unsigned count : *valid) list += (list.empty() ? "" : " ") + std::to_string(count);
  return "board " + board + " boots " + list + " cores, not " + std::to_string(cores);
}

std::unique_ptr<BoardChannel> open_board(const std::filesystem::path& root, const BoardTarget& target,
                                         const AttachTarget& attach_target, std::ostream& notes, std::string& error) {
  if (attach_target.any()) {
    if (target.link == LinkChoice::kShm) {
      error = "--link shm needs a board tpu launches under QEMU; an attached board has only its serial line";
      return nullptr;
    }
    return attach(attach_target, notes, error);
  }
  error = core_count_refusal(root, target.board, target.cores);  // before anything is built
  if (!error.empty()) return nullptr;
  if (!target.app.empty()) {
    error = build_image(root, target.board, target.app);
    if (!error.empty()) return nullptr;
  } else if (target.image) {  // what the board boots, made from the given ELF (raspi3b: its kernel8.img)
    error = build_boot_image(root, target.board, *target.image);
    if (!error.empty()) return nullptr;
  }
  std::unique_ptr<ShmLink> shm = make_shm_link(root, target, error);
  if (!error.empty()) return nullptr;
  std::vector<std::string> variables;
  if (shm) variables.push_back("LINK_SHM=" + shm->ram_file().string());
  std::optional<std::vector<std::string>> command =
      run_command(root, target.board, target.cores, target.app, target.image, error, variables);
  if (!command) return nullptr;
  const bool under_qemu = command->front().starts_with("qemu-system-");
  // QEMU's monitor, for the hang triage to say where a running core is (only where the triage can
  // read the board's memory: the shared-memory link).
  std::optional<QemuMonitor> monitor = shm && under_qemu ? QemuMonitor::create(error) : std::nullopt;
  if (!error.empty()) return nullptr;
  if (monitor) {
    for (const std::string& argument : QemuMonitor::arguments()) command->push_back(argument);
  }
  std::string line;
  for (const std::string& word : *command) line += (line.empty() ? "" : " ") + word;
  notes << "tpu: $ " << line << "   (in " << root.string() << ")" << std::endl;  // its paths are the project's
  install_interrupt_handlers();
  std::optional<BoardProcess> process = BoardProcess::start(
      *command, root.string(), error,
      monitor ? std::optional<InheritedFd>(InheritedFd{monitor->child_end(), QemuMonitor::kChildFd}) : std::nullopt);
  if (monitor) monitor->close_child_end();
  if (!process) {
    error = "cannot start the board: " + error;
    return nullptr;
  }
  std::unique_ptr<BoardChannel> channel = launched_board(std::move(*process), command->front(), std::move(monitor));
  if (!shm) return channel;
  // A host-board process rings tpu (a futex on the window); a QEMU guest cannot.
  return std::make_unique<ShmBoardChannel>(std::move(channel), std::move(shm), /*board_rings_tpu=*/!under_qemu);
}

void connect_frames(BoardChannel& channel, LinkSession& session) {
  channel.set_frame_receiver([&session](std::span<const uint8_t> body) { session.feed_frame_body(body); });
}

const volatile std::sig_atomic_t* install_interrupt_handlers() {
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  return &interrupted;
}

}  // namespace tpu
