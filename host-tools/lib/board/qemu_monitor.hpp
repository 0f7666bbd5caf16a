// QEMU's monitor for the hang triage: where every vCPU of a launched QEMU board is executing. tpu
// makes a socket pair before it launches QEMU; the child's end becomes QEMU's fd 3, named on its
// command line (arguments()):
//   -chardev socket,id=tpu-monitor,fd=3 -mon chardev=tpu-monitor,mode=control
// so there is no socket file to create or to leave behind. tpu speaks QMP (QEMU's JSON machine
// protocol) on its end only for a hang triage (a run past --timeout, Ctrl-C, a pod that is ending):
// `info registers -a` (HMP, through QMP's human-monitor-command) gives every vCPU's registers;
// vcpu_pcs() keeps each one's pc.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpu {

class QemuMonitor {
 public:
  static constexpr int kChildFd = 3;
  static constexpr std::chrono::milliseconds kAnswerTimeout{2000};

  // The socket pair, both ends close-on-exec (the launch makes the child's end its fd 3); nothing,
  // with `error` set, if it cannot be made.
  static std::optional<QemuMonitor> create(std::string& error);
  QemuMonitor(QemuMonitor&& other) noexcept;
  QemuMonitor& operator=(QemuMonitor&&) = delete;
  ~QemuMonitor();

  // QEMU's options for the monitor on kChildFd.
  static std::vector<std::string> arguments();
  int child_end() const { return child_fd_; }
  // Closes the child's end in tpu once QEMU has it.
  void close_child_end();

  // Each vCPU's pc (vCPU i is the board's core i), from `info registers -a`; empty if QEMU does
  // not answer within kAnswerTimeout or answers something else.
  std::map<unsigned, uint64_t> vcpu_pcs();

 private:
  QemuMonitor(int own_fd, int child_fd) : own_fd_(own_fd), child_fd_(child_fd) {}
  // One line from QEMU (QMP's messages are one JSON object per line), or nothing by `deadline`.
  std::optional<std::string> read_line(std::chrono::steady_clock::time_point deadline);
  // The next reply (a line with "return" or "error": events are skipped), or nothing.
  std::optional<std::string> read_reply(std::chrono::steady_clock::time_point deadline);
  bool send_line(const std::string& line);
  std::optional<std::string> human_command(const std::string& command);

  int own_fd_ = -1;
  int child_fd_ = -1;
  bool greeted_ = false;  // QMP's greeting read and capabilities negotiated
  std::string pending_;   // bytes read past the last line
};

// The string value of the first "return" member of a QMP reply line, unescaped; nothing if the
// reply holds no string there (an error reply, a malformed line).
std::optional<std::string> qmp_return_text(std::string_view reply);

// vCPU -> pc from HMP's `info registers -a`: "CPU#<n>" then the vCPU's registers, its pc as
// "PC=<hex>" (AArch64) or a line "pc <hex>" (RISC-V).
std::map<unsigned, uint64_t> vcpu_pcs_of_registers(std::string_view registers);

}  // namespace tpu
