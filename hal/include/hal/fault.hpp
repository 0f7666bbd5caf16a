// Fault reporting: arch exception handlers describe the fault, this prints one report naming the
// core, the exception and the address, then ends the run with kExitFault.
#pragma once
#include <stdint.h>

namespace hal {

struct FaultReport {
  unsigned core;
  const char* exception;  // "data abort", "load access fault", "SIGSEGV", ...
  const char* detail;     // decoded cause, e.g. "translation fault level 1", may be ""
  uint64_t address;       // faulting data/instruction address (FAR, mtval, si_addr)
  uint64_t pc;            // where it happened (ELR, mepc), 0 if unknown
  uint64_t syndrome;      // raw cause register (ESR, mcause), 0 if none
  int stack_guard_owner;  // core whose stack guard page holds `address` (stack overflow), or -1
  uint64_t image_base;    // where a relocated image was loaded (the host board's PIE), 0 if linked in place
};

[[noreturn]] void report_fault(const FaultReport& report);

// Firmware-level fatal error: prints "PANIC core N: message" and exits with kExitFail.
[[noreturn]] void panic(const char* message);

}  // namespace hal
