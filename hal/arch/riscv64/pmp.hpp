// RISC-V physical memory protection used as an MMU substitute in M-mode: locked no-access entries
// over the null page and this hart's stack guard page, so both fault even in M-mode.
#pragma once

namespace hal::arch {

void pmp_protect_guards(unsigned core);

}  // namespace hal::arch
