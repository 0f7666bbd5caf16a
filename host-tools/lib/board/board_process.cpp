// Child process with piped serial I/O (see board_process.hpp).
#include "board_process.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <thread>

namespace tpu {
namespace {

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

int decode_wait_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::string& directory, int stdin_fd,
                             int stdout_fd, const std::optional<InheritedFd>& inherited, pid_t parent) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);   // the board dies with tpu, even if tpu is killed with SIGKILL
  if (getppid() != parent) _exit(127);  // tpu died before the line above took effect
  for (const int signal_number : {SIGPIPE, SIGINT, SIGTERM}) signal(signal_number, SIG_DFL);  // not ours to inherit
  dup2(stdin_fd, STDIN_FILENO);
  dup2(stdout_fd, STDOUT_FILENO);
  if (inherited) {  // dup2 leaves the copy open across exec; the same number needs its flag cleared
    if (inherited->fd == inherited->as) fcntl(inherited->fd, F_SETFD, 0);
    else dup2(inherited->fd, inherited->as);
  }
  if (!directory.empty() && chdir(directory.c_str()) != 0) _exit(127);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  const std::string message = "tpu: cannot start " + argv[0] + ": " + std::strerror(errno) + "\n";
  (void)!write(STDERR_FILENO, message.data(), message.size());
  _exit(127);
}

}  // namespace

std::optional<BoardProcess> BoardProcess::start(const std::vector<std::string>& argv, const std::string& directory,
                                                std::string& error, const std::optional<InheritedFd>& inherited) {
  if (argv.empty()) {
    error = "empty command line";
    return std::nullopt;
  }
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return std::nullopt;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    return std::nullopt;
  }
  if (pid == 0) exec_child(argv, directory, to_child[0], from_child[1], inherited, parent);
  setpgid(pid, pid);  // also from the parent: no race with kill() before the child ran setpgid
  close(to_child[0]);
  close(from_child[1]);
  set_nonblocking(to_child[1]);
  set_nonblocking(from_child[0]);
  return BoardProcess(pid, to_child[1], from_child[0]);
}

BoardProcess::BoardProcess(BoardProcess&& other) noexcept
    : pid_(other.pid_), input_fd_(other.input_fd_), output_fd_(other.output_fd_),
      pending_input_(std::move(other.pending_input_)), exit_code_(other.exit_code_) {
  other.pid_ = -1;
  other.input_fd_ = other.output_fd_ = -1;
}

BoardProcess::~BoardProcess() {
  kill();
  close_input();
  if (output_fd_ >= 0) close(output_fd_);
}

void BoardProcess::close_input() {
  if (input_fd_ >= 0) close(input_fd_);
  input_fd_ = -1;
  pending_input_.clear();
}

void BoardProcess::send(std::span<const uint8_t> bytes) {
  if (input_fd_ < 0) return;
  pending_input_.insert(pending_input_.end(), bytes.begin(), bytes.end());
  flush_input();
}

void BoardProcess::flush_input() {
  while (input_fd_ >= 0 && !pending_input_.empty()) {
    const ssize_t written = write(input_fd_, pending_input_.data(), pending_input_.size());
    if (written > 0) {
      pending_input_.erase(pending_input_.begin(), pending_input_.begin() + written);
    } else if (written < 0 && errno == EINTR) {
      continue;
    } else if (written < 0 && errno == EAGAIN) {
      return;  // the pipe is full: the rest goes when pump() sees it writable
    } else {
      close_input();  // the board closed its input (it exited): nothing more can reach it
    }
  }
}

bool BoardProcess::pump(std::chrono::milliseconds timeout, std::vector<uint8_t>& out) {
  if (output_fd_ < 0) return false;
  pollfd fds[2] = {{output_fd_, POLLIN, 0}, {input_fd_, POLLOUT, 0}};
  const int count = pending_input_.empty() || input_fd_ < 0 ? 1 : 2;
  if (poll(fds, count, static_cast<int>(timeout.count())) < 0) return errno == EINTR;
  if (count == 2 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) flush_input();
  if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) return true;
  uint8_t buffer[65536];
  const ssize_t got = read(output_fd_, buffer, sizeof buffer);
  if (got > 0) {
    out.insert(out.end(), buffer, buffer + got);
    return true;
  }
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  close(output_fd_);
  output_fd_ = -1;
  return false;
}

std::optional<int> BoardProcess::wait_for_exit(std::chrono::milliseconds timeout) {
  if (exit_code_ || pid_ < 0) return exit_code_;
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      exit_code_ = decode_wait_status(status);
      ::kill(-pid_, SIGKILL);  // anything the board process left behind in its group
      return exit_code_;
    }
    if (done < 0 || std::chrono::steady_clock::now() >= give_up) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::optional<std::vector<uint8_t>> BoardProcess::read_memory(uint64_t address, uint64_t bytes) const {
  if (pid_ < 0 || exit_code_) return std::nullopt;
  const int fd = open(("/proc/" + std::to_string(pid_) + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::vector<uint8_t> copy(bytes);
  size_t done = 0;
  while (done < bytes) {
    const ssize_t got = pread(fd, copy.data() + done, bytes - done, static_cast<off_t>(address + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  close(fd);
  if (done != bytes) return std::nullopt;
  return copy;
}

void BoardProcess::kill() {
  if (pid_ < 0 || exit_code_) return;
  ::kill(-pid_, SIGKILL);
  int status = 0;
  if (waitpid(pid_, &status, 0) == pid_) exit_code_ = decode_wait_status(status);
}

}  // namespace tpu
