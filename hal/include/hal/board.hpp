// The contract between hal/common + hal/arch and a board (boards/<name>/board.cpp). Everything that
// differs between boards (addresses, how cores start, which UART, which interrupt controller) lives
// behind these functions; code above the HAL never sees them.
#pragma once
#include <stdint.h>

#include "hal/boot.hpp"

namespace hal::board {

const char* name();
// Boot core, once, after the C++ runtime is up: console, interrupt controller, core discovery.
void init();
// Every core (boot core included), before it runs firmware code: per-core interrupt setup.
void init_core(unsigned core);
// Cores present, as discovered by init().
unsigned core_count();
uint64_t core_hardware_id(unsigned core);
// Releases `core` into the arch secondary entry (PSCI CPU_ON, hart release, thread spawn).
StartError release_core(unsigned core);
// Frequency of the counter time_ns() is derived from (arch timer, CLINT mtime).
uint64_t timer_frequency_hz();

}  // namespace hal::board
