// Per-core doorbell: one core rings another to wake it (GICv3 SGI, CLINT MSIP, futex on the host).
// A ring is level-like: it stays pending until the target consumes it with poll or wait.
#pragma once
#include <stdint.h>

namespace hal {

void doorbell_ring(unsigned core);
// Consumes a pending ring of the calling core; returns whether there was one.
bool doorbell_poll();
// Sleeps until the calling core's doorbell rings (consuming it) or time_ns() reaches deadline_ns.
// Returns true if it rang, false on timeout.
bool doorbell_wait(uint64_t deadline_ns);

}  // namespace hal
