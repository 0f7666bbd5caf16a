// Binding a host-board core (a thread) to a CPU of its own (hal/affinity.hpp).
#include "hal/affinity.hpp"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "hal/core.hpp"
#include "thread_core.hpp"

namespace hal {
namespace {

// The CPUs the process was given, as first seen (core 0 asks before it binds itself, and threads
// inherit their creator's binding, so later threads cannot ask the OS).
const cpu_set_t& process_cpus() {
  static const cpu_set_t allowed = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) CPU_ZERO(&set);
    return set;
  }();
  return allowed;
}

thread_local bool pinned_to_own_cpu = false;  // each core is a thread

}  // namespace

bool core_has_own_cpu() { return pinned_to_own_cpu; }

bool host::cores_outnumber_cpus() {
  static const unsigned cpus = static_cast<unsigned>(CPU_COUNT(&process_cpus()));  // asked on every spin
  return core_count() > cpus;
}

bool pin_core_to_cpu(unsigned core, unsigned first_cpu, unsigned cores) {
  const cpu_set_t& allowed = process_cpus();
  if (CPU_COUNT(&allowed) < static_cast<int>(first_cpu + cores)) return false;
  unsigned seen = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed) || seen++ != first_cpu + core) continue;
    cpu_set_t mine;
    CPU_ZERO(&mine);
    CPU_SET(cpu, &mine);
    pinned_to_own_cpu = sched_setaffinity(0, sizeof(mine), &mine) == 0;
    return pinned_to_own_cpu;
  }
  return false;
}

void bind_core_as_requested(unsigned core, unsigned cores) {
  const char* first = getenv("TPU_BIND_FIRST_CPU");
  if (first == nullptr || *first == '\0') return;
  char* end = nullptr;
  const unsigned long first_cpu = strtoul(first, &end, 10);
  if (*end != '\0' || !pin_core_to_cpu(core, static_cast<unsigned>(first_cpu), cores))
    fprintf(stderr, "host board: core %u could not be bound to CPU %s + %u as asked\n", core, first, core);
}

}  // namespace hal
