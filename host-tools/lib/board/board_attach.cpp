// Serial-device and Unix-socket board channels (board_attach.hpp).
#include "board_attach.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include <cstring>
#include <thread>

namespace tpu {
namespace {

class FdChannel final : public BoardChannel {
 public:
  FdChannel(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  ~FdChannel() override { kill(); }

  void send(std::span<const uint8_t> bytes) override {
    if (fd_ < 0) return;
    pending_.insert(pending_.end(), bytes.begin(), bytes.end());
    flush();
  }

  bool pump(std::chrono::milliseconds timeout, std::vector<uint8_t>& out) override {
    if (fd_ < 0) return false;
    pollfd ready{fd_, static_cast<short>(POLLIN | (pending_.empty() ? 0 : POLLOUT)), 0};
    if (poll(&ready, 1, static_cast<int>(timeout.count())) < 0) return errno == EINTR;
    if (ready.revents & POLLOUT) flush();
    if ((ready.revents & (POLLIN | POLLHUP | POLLERR)) == 0) return true;
    uint8_t buffer[65536];
    const ssize_t got = read(fd_, buffer, sizeof buffer);
    if (got > 0) {
      out.insert(out.end(), buffer, buffer + got);
      return true;
    }
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    kill();  // end of stream: the socket's peer closed, or the device went away
    return false;
  }

  std::optional<int> wait_for_exit(std::chrono::milliseconds) override { return std::nullopt; }
  void kill() override {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    pending_.clear();
  }
  bool launched() const override { return false; }
  std::string name() const override { return name_; }

 private:
  void flush() {
    while (fd_ >= 0 && !pending_.empty()) {
      const ssize_t written = write(fd_, pending_.data(), pending_.size());
      if (written > 0) {
        pending_.erase(pending_.begin(), pending_.begin() + written);
      } else if (written < 0 && errno == EINTR) {
        continue;
      } else {
        return;  // EAGAIN: later, when poll says writable; other errors show up as end of stream
      }
    }
  }

  int fd_;
  std::string name_;
  std::vector<uint8_t> pending_;
};

std::optional<speed_t> speed_of(unsigned baud) {
  switch (baud) {
    case 9600: return B9600;
    case 19200: return B19200;
    case 38400: return B38400;
    case 57600: return B57600;
    case 115200: return B115200;
    case 230400: return B230400;
    case 460800: return B460800;
    case 921600: return B921600;
    case 1000000: return B1000000;
    case 1500000: return B1500000;
    case 2000000: return B2000000;
    case 3000000: return B3000000;
  }
  return std::nullopt;
}

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

std::unique_ptr<BoardChannel> attach_serial(const std::string& device, unsigned baud, std::string& error) {
  const std::optional<speed_t> speed = speed_of(baud);
  if (!speed) {
    error = "unsupported baud rate " + std::to_string(baud) + " (9600 .. 3000000, the standard rates)";
    return nullptr;
  }
  const int fd = open(device.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = errno_text("cannot open " + device);
    return nullptr;
  }
  termios settings{};
  if (isatty(fd) && tcgetattr(fd, &settings) == 0) {
    cfmakeraw(&settings);
    settings.c_cflag |= CLOCAL | CREAD;
    settings.c_cflag &= ~(CSTOPB | CRTSCTS);
    cfsetispeed(&settings, *speed);
    cfsetospeed(&settings, *speed);
    if (tcsetattr(fd, TCSANOW, &settings) != 0) {
      error = errno_text("cannot configure " + device);
      close(fd);
      return nullptr;
    }
  }
  return std::make_unique<FdChannel>(fd, device);
}

std::unique_ptr<BoardChannel> attach_socket(const std::string& path, std::chrono::milliseconds patience,
                                            std::string& error) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) {
    error = "socket path too long: " + path;
    return nullptr;
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const auto give_up = std::chrono::steady_clock::now() + patience;
  for (;;) {
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      error = errno_text("socket");
      return nullptr;
    }
    if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
      return std::make_unique<FdChannel>(fd, "socket " + path);
    }
    error = errno_text("cannot connect to " + path);
    close(fd);
    if (std::chrono::steady_clock::now() >= give_up) return nullptr;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace tpu
