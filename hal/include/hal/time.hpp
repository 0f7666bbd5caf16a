// Monotonic time, cycle and instruction counters. Under QEMU with -icount, time is instruction-based.
#pragma once
#include <stdint.h>

namespace hal {

uint64_t time_ns();      // monotonic nanoseconds since an arbitrary start
uint64_t cycle_count();  // the cheapest fine-grained counter the core has (cycles or timer ticks)
// Instructions this core retired (PMU INST_RETIRED, instret). Exact under QEMU -icount; 0 where the
// core cannot count them (the host board, or QEMU's Arm PMU without -icount).
uint64_t instruction_count();
void delay_ns(uint64_t nanoseconds);

inline constexpr uint64_t kNanosPerMilli = 1000000;

// now + timeout, saturating: a huge timeout means "practically forever", never an instant one.
inline uint64_t deadline_after(uint64_t timeout_ns) {
  const uint64_t now = time_ns();
  return timeout_ns > ~0ull - now ? ~0ull : now + timeout_ns;
}

}  // namespace hal
