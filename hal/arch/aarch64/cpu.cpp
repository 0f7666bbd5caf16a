// AArch64 core identity, privilege level, WFE/SEV events and the generic-timer clock.
#include "hal/core.hpp"
#include "hal/event.hpp"
#include "hal/time.hpp"
#include "sysreg.hpp"

namespace hal {

unsigned core_id() { return static_cast<unsigned>(read_sysreg(tpidr_el1)); }

const char* core_privilege() {
  switch ((read_sysreg(CurrentEL) >> 2) & 3) {
    case 0: return "EL0";
    case 1: return "EL1";
    case 2: return "EL2";
    default: return "EL3";
  }
}

void cpu_relax() { asm volatile("yield" ::: "memory"); }
void wait_for_event() { asm volatile("wfe" ::: "memory"); }
void send_event() { asm volatile("dsb ish\n sev" ::: "memory"); }

uint64_t time_ns() {
  const uint64_t ticks = read_sysreg(cntvct_el0);
  const uint64_t frequency = read_sysreg(cntfrq_el0);
  // Split to avoid overflowing ticks * 1e9 (which would happen after ~5 minutes at 62.5 MHz).
  return (ticks / frequency) * 1000000000ull + (ticks % frequency) * 1000000000ull / frequency;
}

uint64_t cycle_count() { return read_sysreg(pmccntr_el0); }

void delay_ns(uint64_t nanoseconds) {
  const uint64_t end = time_ns() + nanoseconds;
  while (time_ns() < end) cpu_relax();
}

uint64_t instruction_count() { return read_sysreg(pmevcntr0_el0); }

// Enables this core's PMU cycle counter and event counter 0 counting INST_RETIRED (event 0x08).
void arch_enable_counters() {
  write_sysreg(pmcr_el0, read_sysreg(pmcr_el0) | 1);           // E: enable counters
  write_sysreg(pmevtyper0_el0, 0x08);                          // INST_RETIRED, counted at EL1
  write_sysreg(pmcntenset_el0, (1ull << 31) | 1);              // C: cycle counter, P0: event counter 0
  arch::isb();
}

}  // namespace hal

namespace hal {

// Affinity fields of MPIDR_EL1 (Aff3..Aff0), the core's hardware id.
uint64_t this_core_hardware_id() { return read_sysreg(mpidr_el1) & 0xff00ffffffull; }

}  // namespace hal
