// RISC-V trap decoding: turns mcause/mepc/mtval into a FaultReport naming core, cause and address.
#include <stdint.h>

#include "hal/core.hpp"
#include "hal/fault.hpp"
#include "stacks.hpp"

namespace {

constexpr uint64_t kInterruptBit = 1ull << 63;

const char* exception_name(uint64_t cause) {
  switch (cause) {
    case 0: return "instruction address misaligned";
    case 1: return "instruction access fault";
    case 2: return "illegal instruction";
    case 3: return "breakpoint";
    case 4: return "load address misaligned";
    case 5: return "load access fault";
    case 6: return "store/AMO address misaligned";
    case 7: return "store/AMO access fault";
    case 8: case 9: case 11: return "environment call";
    case 12: return "instruction page fault";
    case 13: return "load page fault";
    case 15: return "store/AMO page fault";
    default: return "unexpected exception";
  }
}

bool is_memory_fault(uint64_t cause) { return cause == 1 || cause == 5 || cause == 7 || (cause >= 12 && cause <= 15); }

}  // namespace

extern "C" [[noreturn]] void riscv_trap(uint64_t mcause, uint64_t mepc, uint64_t mtval, const uint64_t* /*frame*/) {
  hal::FaultReport report{};
  report.core = hal::core_id();
  const bool interrupt = (mcause & kInterruptBit) != 0;
  report.exception = interrupt ? "unexpected interrupt" : exception_name(mcause);
  report.detail = !interrupt && is_memory_fault(mcause) ? "address not accessible (unmapped or PMP guard)" : "";
  report.address = interrupt ? 0 : (mtval != 0 || is_memory_fault(mcause) ? mtval : mepc);
  report.pc = mepc;
  report.syndrome = mcause;
  report.stack_guard_owner = !interrupt && is_memory_fault(mcause) ? hal::stack_guard_owner(mtval) : -1;
  hal::report_fault(report);
}
