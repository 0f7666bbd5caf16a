// RISC-V core identity, privilege, spin hints and the time CSR clock.
#include "csr.hpp"
#include "hal/board.hpp"
#include "hal/core.hpp"
#include "hal/event.hpp"
#include "hal/time.hpp"

namespace hal {

unsigned core_id() { return static_cast<unsigned>(read_csr(mhartid)); }
uint64_t this_core_hardware_id() { return read_csr(mhartid); }
const char* core_privilege() { return "M-mode"; }

// Zihintpause PAUSE, encoded as FENCE W,0 so that cores without the extension treat it as a fence.
void cpu_relax() { asm volatile(".4byte 0x0100000f" ::: "memory"); }
// wait_for_event/send_event: RISC-V has no WFE/SEV; the board emulates them with its timer.

uint64_t time_ns() {
  uint64_t ticks;
  asm volatile("rdtime %0" : "=r"(ticks));
  const uint64_t frequency = board::timer_frequency_hz();
  return (ticks / frequency) * 1000000000ull + (ticks % frequency) * 1000000000ull / frequency;
}

uint64_t cycle_count() {
  uint64_t cycles;
  asm volatile("rdcycle %0" : "=r"(cycles));
  return cycles;
}

uint64_t instruction_count() {
  uint64_t instructions;
  asm volatile("rdinstret %0" : "=r"(instructions));
  return instructions;
}

void delay_ns(uint64_t nanoseconds) {
  const uint64_t end = time_ns() + nanoseconds;
  while (time_ns() < end) cpu_relax();
}

}  // namespace hal
