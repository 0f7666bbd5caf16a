// Host core identity, spin hints and clocks.
#include <sched.h>
#include <time.h>

#include "hal/core.hpp"
#include "hal/event.hpp"
#include "hal/time.hpp"
#include "thread_core.hpp"

namespace hal {

unsigned core_id() { return host::current_core(); }
uint64_t this_core_hardware_id() { return host::current_core(); }
const char* core_privilege() { return "user (host thread)"; }

// A spin's pause: the pause instruction, or, when the cores outnumber the CPUs, the CPU itself: a
// core spinning there holds a CPU that the core it waits for may need. Measured (train-digits MLP on
// this 2-CPU VM): 8 host cores 57-59k samples/s with the pause, 135-140k yielding; bench-allreduce
// at 8 cores within its spread either way; 2 cores (one CPU each) keep the pause.
void cpu_relax() {
  if (host::cores_outnumber_cpus()) {
    sched_yield();
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
// Threads may outnumber host CPUs: waiting cores must give their CPU away.
void wait_for_event() { sched_yield(); }
void send_event() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

uint64_t time_ns() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

uint64_t cycle_count() {
#if defined(__x86_64__)
  return __builtin_ia32_rdtsc();
#else
  return time_ns();
#endif
}

uint64_t instruction_count() { return 0; }  // not observable from a plain process

void delay_ns(uint64_t nanoseconds) {
  const uint64_t end = time_ns() + nanoseconds;
  while (time_ns() < end) sched_yield();
}

}  // namespace hal
