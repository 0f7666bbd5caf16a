// Pinning a core to a host CPU of its own. Only the host board (cores are threads of a Linux
// process) has anything to pin; on the bare-metal boards every core already is a CPU. Benchmarks
// pin, as mpirun binds ranks: an unpinned loaded machine may run two cores' threads on one CPU,
// and then every message between them waits for a scheduler switch.
#pragma once

namespace hal {

// Pins the calling core to the core-th CPU the process may use, if it may use at least `cores`
// CPUs (with fewer, the OS must share them out anyway). True if it pinned.
bool pin_core_to_own_cpu(unsigned core, unsigned cores);

}  // namespace hal
