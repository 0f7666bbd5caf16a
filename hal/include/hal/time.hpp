// Monotonic time and cycle counters. Under QEMU with -icount, time is instruction-based.
#pragma once
#include <stdint.h>

namespace hal {

uint64_t time_ns();      // monotonic nanoseconds since an arbitrary start
uint64_t cycle_count();  // the cheapest fine-grained counter the core has (cycles or timer ticks)
void delay_ns(uint64_t nanoseconds);

inline constexpr uint64_t kNanosPerMilli = 1000000;

}  // namespace hal
