// Core identity: which core is running, how many there are, and what the hardware calls them.
#pragma once
#include <stdint.h>

namespace hal {

// Upper bound on cores any board supports; per-core tables are sized by it.
inline constexpr unsigned kMaxCores = 16;

// Logical id of the calling core, 0 .. core_count()-1 (0 is the boot core).
unsigned core_id();
// Cores present in this run, discovered by the board at boot (PSCI, device tree, thread count).
unsigned core_count();
// The hardware's name for a core: MPIDR on Arm, hart id on RISC-V, thread index on the host.
uint64_t core_hardware_id(unsigned core);
// The hardware id the calling core reads from itself (MPIDR_EL1, mhartid); must match the table.
uint64_t this_core_hardware_id();
// Privilege level the calling core runs at: "EL1", "M-mode", "user".
const char* core_privilege();

}  // namespace hal
