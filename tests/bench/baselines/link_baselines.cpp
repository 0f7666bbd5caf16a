// Baselines for the host-link benchmark (tests/bench/link_throughput.py), measured on this machine:
//   socketpair  one writer thread, one reader thread, the same byte count through a Unix
//               socketpair in 256 KiB writes (the bytes a host tool could push to a local process)
//   memcpy      the same bytes copied once between two buffers already touched (memory speed)
//   ping-pong   a 4-byte message there and back between two threads over a socketpair (the round
//               trip an OS byte stream costs, for the host-call latency)
// Each figure is the best of several runs. Prints one JSON object per line:
//   {"size": N, "socketpair_mb_s": x, "memcpy_mb_s": y}   per size given on the command line
//   {"pingpong_median_us": m, "pingpong_p99_us": p}
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double socketpair_seconds(size_t bytes) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) std::abort();
  const size_t chunk = 256 * 1024;
  std::vector<uint8_t> out(chunk, 0x5a), in(chunk);
  const auto start = Clock::now();
  std::thread reader([&] {
    for (size_t got = 0; got < bytes;) {
      const ssize_t n = read(fds[1], in.data(), in.size());
      if (n <= 0) std::abort();
      got += static_cast<size_t>(n);
    }
  });
  for (size_t sent = 0; sent < bytes;) {
    const ssize_t n = write(fds[0], out.data(), std::min(chunk, bytes - sent));
    if (n <= 0) std::abort();
    sent += static_cast<size_t>(n);
  }
  reader.join();
  const double elapsed = seconds_since(start);
  close(fds[0]);
  close(fds[1]);
  return elapsed;
}

double memcpy_seconds(std::vector<uint8_t>& from, std::vector<uint8_t>& to, size_t bytes) {
  const auto start = Clock::now();
  std::memcpy(to.data(), from.data(), bytes);
  const double elapsed = seconds_since(start);
  if (to[bytes / 2] != from[bytes / 2]) std::abort();
  return elapsed;
}

void ping_pong(unsigned rounds) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) std::abort();
  std::thread echo([&] {
    uint32_t value;
    for (unsigned i = 0; i < rounds; ++i) {
      if (read(fds[1], &value, sizeof value) != sizeof value) std::abort();
      if (write(fds[1], &value, sizeof value) != sizeof value) std::abort();
    }
  });
  std::vector<double> microseconds;
  for (uint32_t i = 0; i < rounds; ++i) {
    const auto start = Clock::now();
    uint32_t value = i;
    if (write(fds[0], &value, sizeof value) != sizeof value || read(fds[0], &value, sizeof value) != sizeof value)
      std::abort();
    microseconds.push_back(seconds_since(start) * 1e6);
  }
  echo.join();
  close(fds[0]);
  close(fds[1]);
  std::sort(microseconds.begin(), microseconds.end());
  std::printf("{\"pingpong_median_us\": %.3f, \"pingpong_p99_us\": %.3f}\n", microseconds[rounds / 2],
              microseconds[rounds * 99 / 100]);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const size_t bytes = std::strtoull(argv[i], nullptr, 10);
    std::vector<uint8_t> from(bytes, 0x33), to(bytes, 0);
    double socket_best = 1e30, memcpy_best = 1e30;
    for (int run = 0; run < 3; ++run) socket_best = std::min(socket_best, socketpair_seconds(bytes));
    for (int run = 0; run < 5; ++run) memcpy_best = std::min(memcpy_best, memcpy_seconds(from, to, bytes));
    std::printf("{\"size\": %zu, \"socketpair_mb_s\": %.1f, \"memcpy_mb_s\": %.1f}\n", bytes, bytes / socket_best / 1e6,
                bytes / memcpy_best / 1e6);
  }
  ping_pong(2000);
  return 0;
}
