// Binding a core to a host CPU of its own. Only the host board (cores are threads of a Linux
// process) has anything to bind; on the bare-metal boards every core already is a CPU. Benchmarks
// bind, as mpirun binds ranks: an unbound loaded machine may run two cores' threads on one CPU,
// and then every message between them waits for a scheduler switch.
#pragma once

namespace hal {

// Pins the calling core to the (first_cpu + core)-th CPU the process may use, if it may use at
// least first_cpu + cores CPUs (with fewer, the OS must share them out anyway). True if it pinned.
bool pin_core_to_cpu(unsigned core, unsigned first_cpu, unsigned cores);
inline bool pin_core_to_own_cpu(unsigned core, unsigned cores) { return pin_core_to_cpu(core, 0, cores); }

// True if the calling core was pinned to a CPU of its own (pin_core_to_cpu succeeded on it): it may
// then poll a while longer for a peer before it sleeps (runtime/mailbox), since no other core needs
// its CPU. False on the bare-metal boards, whose cores may be an emulator's threads sharing CPUs.
bool core_has_own_cpu();

// The host board: pins the calling core as its host asked (`tpu run --bind-to core` sets
// TPU_BIND_FIRST_CPU=F: core c to CPU F + c); nothing when nobody asked, and on the other boards.
void bind_core_as_requested(unsigned core, unsigned cores);

}  // namespace hal
