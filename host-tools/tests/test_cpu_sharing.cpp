// How tpu shares the machine's CPUs with its board (host-tools/lib/board/cpu_sharing.hpp): what
// `--bind-to core` asks of the host board (the variable it sets) and says, and when tpu may spin.
// The expected values come from the process's own CPU count, read here with sched_getaffinity.
#include <catch2/catch.hpp>

#include <sched.h>
#include <stdlib.h>

#include <string>

#include "host-tools/lib/board/cpu_sharing.hpp"

namespace {

unsigned cpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  REQUIRE(sched_getaffinity(0, sizeof(allowed), &allowed) == 0);
  return static_cast<unsigned>(CPU_COUNT(&allowed));
}

std::string requested() {
  const char* value = getenv("TPU_BIND_FIRST_CPU");
  return value == nullptr ? "(unset)" : value;
}

}  // namespace

TEST_CASE("--bind-to core asks the host board for consecutive CPUs by local rank, where they exist", "[cpu-sharing]") {
  const unsigned n = cpus();
  CHECK(tpu::request_core_binding("core", "host", 1, 0) == "the board's cores are bound to CPU 0 (--bind-to core)");
  CHECK(requested() == "0");
  if (n >= 4) {
    CHECK(tpu::request_core_binding("core", "host", 2, 1) == "the board's cores are bound to CPUs 2-3 (--bind-to core)");
    CHECK(requested() == "2");
  }
  // More cores than CPUs: nothing asked, and tpu says why.
  CHECK(tpu::request_core_binding("core", "host", n + 1, 0) ==
        "--bind-to core: not bound, " + std::to_string(n + 1) + " cores from CPU 0 need " + std::to_string(n + 1) +
            " CPUs and tpu may use " + std::to_string(n));
  CHECK(requested() == "(unset)");
  // The default core count (8) counts; a second board on the machine starts after the first's CPUs.
  CHECK(tpu::request_core_binding("core", "host", 0, 1).find(n >= 16 ? "bound to CPUs 8-15" : "not bound, 8 cores from CPU 8") !=
        std::string::npos);
  // QEMU's threads are not ours to bind; --bind-to none (the default) withdraws an earlier request.
  CHECK(tpu::request_core_binding("core", "qemu-virt-a53", 2, 0) ==
        "--bind-to core binds the host board's cores; qemu-virt-a53's are QEMU's threads, left to the OS");
  tpu::request_core_binding("core", "host", 1, 0);
  CHECK(tpu::request_core_binding("none", "host", 1, 0).empty());
  CHECK(requested() == "(unset)");
}

TEST_CASE("tpu spins only where the boards leave a CPU for it", "[cpu-sharing]") {
  const unsigned n = cpus();
  CHECK(tpu::cpu_left_for_tpu(n - 1 == 0 ? 1 : n - 1, 1) == (n > 1));
  CHECK_FALSE(tpu::cpu_left_for_tpu(n, 1));
  CHECK_FALSE(tpu::cpu_left_for_tpu(1, n));  // n boards of one core each
  CHECK(tpu::cpu_left_for_tpu(0, 1) == (n > 8));  // the default 8 cores
}
