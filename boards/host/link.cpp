// host board link: the same byte stream as a QEMU board's UART, on the process's stdio. Frames go to
// stdout next to the console text (the caller holds the console lock, so they never interleave)
// and the host's frames come from stdin. `tpu run --board host` starts the image with pipes on
// both and serves it exactly as it serves QEMU; run alone (make run), no host hello ever arrives,
// so the board writes no frames and host calls time out with a message saying so. With the
// shared-memory link, the window's doorbells are futexes both processes share (link_sleep, link_wake).
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sys/syscall.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

#include "hal/link.hpp"
#include "hal/time.hpp"

namespace hal {
namespace {

// Bytes read from stdin but not yet consumed. Reads are non-blocking (poll first), so a silent host
// never stalls a core; end of input reads as "nothing waiting" from then on.
struct InputBuffer {
  std::mutex mutex;
  unsigned char bytes[4096];
  size_t next = 0;
  size_t end = 0;
  bool closed = false;

  bool refill() {
    if (closed) return false;
    pollfd ready{STDIN_FILENO, POLLIN, 0};
    if (::poll(&ready, 1, 0) <= 0 || (ready.revents & (POLLIN | POLLHUP)) == 0) return false;
    const ssize_t count = read(STDIN_FILENO, bytes, sizeof bytes);
    if (count <= 0) {
      closed = count == 0 || (errno != EAGAIN && errno != EINTR);
      return false;
    }
    next = 0;
    end = static_cast<size_t>(count);
    return true;
  }
};

InputBuffer input;
std::atomic<bool> any_link_byte_written{false};

}  // namespace

void link_write(const uint8_t* bytes, size_t length) {
  any_link_byte_written.store(true, std::memory_order_relaxed);
  while (length > 0) {
    const ssize_t written = write(STDOUT_FILENO, bytes, length);
    if (written <= 0) {
      if (written < 0 && errno == EINTR) continue;
      return;  // stdout closed: the host is gone
    }
    bytes += written;
    length -= static_cast<size_t>(written);
  }
}

bool link_written() { return any_link_byte_written.load(std::memory_order_relaxed); }

bool link_host_attached() {
  const char* value = getenv("TPU_LINK_HOST");
  return value != nullptr && value[0] == '1';
}

bool link_host_shares_cpus() {
  static const bool shares = [] {
    const char* value = getenv("TPU_HOST_SHARES_CPUS");
    return value != nullptr && value[0] == '1';
  }();
  return shares;
}

bool link_wakeable() { return true; }

// The word lies in the RAM file both processes map (MAP_SHARED): a shared futex (no
// FUTEX_PRIVATE_FLAG), so tpu's wake reaches this process.
void link_sleep(const uint32_t* word, uint32_t seen, uint64_t deadline_ns) {
  const uint64_t now = time_ns();
  if (now >= deadline_ns) return;
  const uint64_t wait = deadline_ns - now;
  const timespec timeout{static_cast<time_t>(wait / 1000000000u), static_cast<long>(wait % 1000000000u)};
  syscall(SYS_futex, word, FUTEX_WAIT, seen, &timeout, nullptr, 0);  // EAGAIN (changed), EINTR, ETIMEDOUT: return
}

void link_wake(const uint32_t* word) { syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0); }

int link_read_byte() {
  std::lock_guard<std::mutex> lock(input.mutex);
  if (input.next == input.end && !input.refill()) return -1;
  return input.bytes[input.next++];
}

}  // namespace hal
