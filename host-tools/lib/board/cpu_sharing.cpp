// How tpu and its board share the CPUs (cpu_sharing.hpp).
#include "cpu_sharing.hpp"

#include <sched.h>
#include <stdlib.h>

namespace tpu {
namespace {

constexpr unsigned kDefaultCores = 8;  // the Makefile's CORES when --cores is not given
constexpr const char* kVariable = "TPU_BIND_FIRST_CPU";

unsigned usable_cpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return 0;
  return static_cast<unsigned>(CPU_COUNT(&allowed));
}

std::string cpu_range(unsigned first, unsigned count) {
  return count == 1 ? "CPU " + std::to_string(first)
                    : "CPUs " + std::to_string(first) + "-" + std::to_string(first + count - 1);
}

}  // namespace

unsigned cores_or_default(unsigned cores) { return cores != 0 ? cores : kDefaultCores; }

std::string request_core_binding(const std::string& bind_to, const std::string& board, unsigned cores,
                                 unsigned local_rank) {
  unsetenv(kVariable);
  if (bind_to != "core") return "";
  if (board != "host") return "--bind-to core binds the host board's cores; " + board + "'s are QEMU's threads, left to the OS";
  const unsigned count = cores_or_default(cores);
  const unsigned first = local_rank * count, cpus = usable_cpus();
  if (first + count > cpus)
    return "--bind-to core: not bound, " + std::to_string(count) + " cores from CPU " + std::to_string(first) + " need " +
           std::to_string(first + count) + " CPUs and tpu may use " + std::to_string(cpus);
  setenv(kVariable, std::to_string(first).c_str(), 1);
  return "the board's cores are bound to " + cpu_range(first, count) + " (--bind-to core)";
}

bool cpu_left_for_tpu(unsigned cores, unsigned boards_here) {
  return cores_or_default(cores) * boards_here < usable_cpus();
}

}  // namespace tpu
