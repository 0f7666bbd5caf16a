// A board run as a child process (QEMU, or the host board's binary) with its serial line on pipes:
// the child's stdin carries what the host sends, its stdout what the board writes (console text
// and frames); its stderr is left to the terminal. The child runs in its own process group, so
// stopping it also stops anything it started, and it dies with tpu (PR_SET_PDEATHSIG), even when
// tpu itself is killed with SIGKILL. Writes to the child never block: they queue and go
// out as the pipe takes them, so a board that stops reading cannot stall the host.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tpu {

// A descriptor of tpu's that the child gets as descriptor `as` (QEMU's monitor socket: qemu_monitor.hpp).
struct InheritedFd {
  int fd;
  int as;
};

class BoardProcess {
 public:
  // Starts `argv` in `directory`; returns an error text on failure (and `process` empty).
  static std::optional<BoardProcess> start(const std::vector<std::string>& argv, const std::string& directory,
                                           std::string& error, const std::optional<InheritedFd>& inherited = {});
  BoardProcess(BoardProcess&& other) noexcept;
  BoardProcess& operator=(BoardProcess&&) = delete;
  ~BoardProcess();

  void send(std::span<const uint8_t> bytes);
  // Waits up to `timeout` for output; appends what arrived to `out`. Returns false once the board's
  // output has ended (it exited or closed stdout) and everything was read.
  bool pump(std::chrono::milliseconds timeout, std::vector<uint8_t>& out);
  // Waits up to `timeout` for the child to exit; its exit code (128 + signal if killed), or nothing.
  std::optional<int> wait_for_exit(std::chrono::milliseconds timeout);
  // Kills the process group and reaps the child.
  void kill();
  // A copy of `bytes` of the running child's memory at `address` (/proc/<pid>/mem; a parent may read
  // its child's), nothing if it is not mapped or the child is gone. The host board's memory is its
  // process's: hang triage reads its status table and trace rings this way.
  std::optional<std::vector<uint8_t>> read_memory(uint64_t address, uint64_t bytes) const;
  pid_t pid() const { return pid_; }

 private:
  BoardProcess(pid_t pid, int input_fd, int output_fd) : pid_(pid), input_fd_(input_fd), output_fd_(output_fd) {}
  void flush_input();
  void close_input();

  pid_t pid_ = -1;
  int input_fd_ = -1;   // the child's stdin (we write)
  int output_fd_ = -1;  // the child's stdout (we read)
  std::vector<uint8_t> pending_input_;
  std::optional<int> exit_code_;
};

}  // namespace tpu
