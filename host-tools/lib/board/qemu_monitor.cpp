// QEMU's monitor for the hang triage (qemu_monitor.hpp).
#include "qemu_monitor.hpp"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "host-tools/lib/text/json_string.hpp"
#include "host-tools/lib/text/number_at_start.hpp"

namespace tpu {
namespace {

using Clock = std::chrono::steady_clock;

// The hexadecimal number `text` starts with, or nothing.
std::optional<uint64_t> hex_at_start(std::string_view text) { return number_at_start<uint64_t>(text, 16); }

// The pc in one line of a vCPU's registers, if the line holds it.
std::optional<uint64_t> pc_in_line(std::string_view line) {
  for (size_t at = line.find("PC="); at != std::string_view::npos; at = line.find("PC=", at + 1))
    if (at == 0 || line[at - 1] == ' ') return hex_at_start(line.substr(at + 3));  // AArch64: " PC=0000000040128a88 X00=..."
  size_t first = line.find_first_not_of(' ');
  if (first != std::string_view::npos && line.substr(first).starts_with("pc ")) {  // RISC-V: " pc       0000..."
    first = line.find_first_not_of(' ', first + 2);
    if (first != std::string_view::npos) return hex_at_start(line.substr(first));
  }
  return std::nullopt;
}

}  // namespace

std::optional<QemuMonitor> QemuMonitor::create(std::string& error) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    error = std::string("socketpair for QEMU's monitor: ") + std::strerror(errno);
    return std::nullopt;
  }
  return QemuMonitor(ends[0], ends[1]);
}

QemuMonitor::QemuMonitor(QemuMonitor&& other) noexcept
    : own_fd_(other.own_fd_), child_fd_(other.child_fd_), greeted_(other.greeted_), pending_(std::move(other.pending_)) {
  other.own_fd_ = other.child_fd_ = -1;
}

QemuMonitor::~QemuMonitor() {
  if (own_fd_ >= 0) close(own_fd_);
  close_child_end();
}

std::vector<std::string> QemuMonitor::arguments() {
  return {"-chardev", "socket,id=tpu-monitor,fd=" + std::to_string(kChildFd), "-mon", "chardev=tpu-monitor,mode=control"};
}

void QemuMonitor::close_child_end() {
  if (child_fd_ >= 0) close(child_fd_);
  child_fd_ = -1;
}

std::optional<std::string> QemuMonitor::read_line(Clock::time_point deadline) {
  for (;;) {
    if (const size_t end = pending_.find('\n'); end != std::string::npos) {
      std::string line = pending_.substr(0, end);
      pending_.erase(0, end + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd readable{own_fd_, POLLIN, 0};
    if (left <= 0 || poll(&readable, 1, static_cast<int>(left)) <= 0) return std::nullopt;
    char buffer[65536];
    const ssize_t got = recv(own_fd_, buffer, sizeof buffer, 0);
    if (got <= 0) return std::nullopt;  // QEMU is gone
    pending_.append(buffer, static_cast<size_t>(got));
  }
}

std::optional<std::string> QemuMonitor::read_reply(Clock::time_point deadline) {
  for (;;) {
    std::optional<std::string> line = read_line(deadline);
    if (!line || line->find("\"return\"") != std::string::npos || line->find("\"error\"") != std::string::npos)
      return line;
  }
}

bool QemuMonitor::send_line(const std::string& line) {
  const std::string text = line + "\n";
  return send(own_fd_, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT) == static_cast<ssize_t>(text.size());
}

std::optional<std::string> QemuMonitor::human_command(const std::string& command) {
  if (own_fd_ < 0) return std::nullopt;
  const Clock::time_point deadline = Clock::now() + kAnswerTimeout;
  if (!greeted_) {  // the greeting ({"QMP": ...}), then capabilities negotiation, as QMP requires
    if (!read_line(deadline) || !send_line(R"({"execute": "qmp_capabilities"})")) return std::nullopt;
    const std::optional<std::string> accepted = read_reply(deadline);
    if (!accepted || accepted->find("\"return\"") == std::string::npos) return std::nullopt;
    greeted_ = true;
  }
  if (!send_line(R"({"execute": "human-monitor-command", "arguments": {"command-line": ")" + command + "\"}}"))
    return std::nullopt;
  const std::optional<std::string> reply = read_reply(deadline);
  return reply ? qmp_return_text(*reply) : std::nullopt;
}

std::map<unsigned, uint64_t> QemuMonitor::vcpu_pcs() {
  const std::optional<std::string> registers = human_command("info registers -a");
  return registers ? vcpu_pcs_of_registers(*registers) : std::map<unsigned, uint64_t>{};
}

std::optional<std::string> qmp_return_text(std::string_view reply) {
  size_t at = reply.find("\"return\"");
  if (at == std::string_view::npos) return std::nullopt;
  at = reply.find_first_not_of(" \t", at + 8);
  if (at == std::string_view::npos || reply[at] != ':') return std::nullopt;
  at = reply.find_first_not_of(" \t", at + 1);
  if (at == std::string_view::npos || reply[at] != '"') return std::nullopt;
  ++at;
  return read_json_string(reply, at);
}

std::map<unsigned, uint64_t> vcpu_pcs_of_registers(std::string_view registers) {
  std::map<unsigned, uint64_t> pcs;
  std::optional<unsigned> vcpu;
  while (!registers.empty()) {
    const size_t end = registers.find('\n');
    std::string_view line = registers.substr(0, end);
    registers = end == std::string_view::npos ? std::string_view() : registers.substr(end + 1);
    if (line.starts_with("CPU#")) {
      line.remove_prefix(4);
      vcpu = number_at_start<unsigned>(line, 10, 4);
      continue;
    }
    if (!vcpu || pcs.count(*vcpu)) continue;
    if (const std::optional<uint64_t> pc = pc_in_line(line)) pcs[*vcpu] = *pc;
  }
  return pcs;
}

}  // namespace tpu
