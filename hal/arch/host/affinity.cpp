// Pinning a host-board core (a thread) to a CPU of its own (hal/affinity.hpp).
#include "hal/affinity.hpp"

#include <sched.h>

namespace hal {

bool pin_core_to_own_cpu(unsigned core, unsigned cores) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 || CPU_COUNT(&allowed) < static_cast<int>(cores)) return false;
  unsigned seen = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed) || seen++ != core) continue;
    cpu_set_t mine;
    CPU_ZERO(&mine);
    CPU_SET(cpu, &mine);
    return sched_setaffinity(0, sizeof(mine), &mine) == 0;
  }
  return false;
}

}  // namespace hal
