// The Arm generic timer's EL1 virtual timer as a wake-up source: armed with a deadline it raises
// its PPI when time passes the deadline, which wakes a core sleeping in WFI.
#pragma once
#include <stdint.h>

#include "sysreg.hpp"

namespace hal::arch {

inline constexpr unsigned kVirtualTimerPpi = 27;

inline uint64_t timer_ticks_for_ns(uint64_t nanoseconds) {
  const uint64_t frequency = read_sysreg(cntfrq_el0);
  return (nanoseconds / 1000000000ull) * frequency + (nanoseconds % 1000000000ull) * frequency / 1000000000ull;
}

inline void virtual_timer_arm(uint64_t deadline_ns) {
  write_sysreg(cntv_cval_el0, timer_ticks_for_ns(deadline_ns));
  write_sysreg(cntv_ctl_el0, 1);  // enable, not masked
  isb();
}

inline void virtual_timer_disarm() {
  write_sysreg(cntv_ctl_el0, 0);
  isb();
}

inline void wait_for_interrupt() { asm volatile("dsb sy\n wfi" ::: "memory"); }

}  // namespace hal::arch
