// AArch64 exception decoding: turns ESR/FAR/ELR into a FaultReport naming core, exception and
// address. All exceptions are fatal here; see vectors.S.
#include <stdint.h>

#include "../../common/baremetal/stacks.hpp"
#include "hal/core.hpp"
#include "hal/fault.hpp"
#include "sysreg.hpp"

namespace {

struct ExceptionFrame {
  uint64_t x[31];
  uint64_t sp_el0;
  uint64_t elr;
  uint64_t spsr;
};

const char* exception_class_name(unsigned ec) {
  switch (ec) {
    case 0x00: return "undefined instruction";
    case 0x01: return "WFI/WFE trap";
    case 0x07: return "FP/SIMD access trap";
    case 0x0e: return "illegal execution state";
    case 0x15: return "SVC";
    case 0x16: return "HVC";
    case 0x18: return "system register trap";
    case 0x20: case 0x21: return "instruction abort";
    case 0x22: return "PC alignment fault";
    case 0x24: case 0x25: return "data abort";
    case 0x26: return "SP alignment fault";
    case 0x2c: return "floating-point exception";
    case 0x2f: return "SError";
    case 0x3c: return "BRK instruction";
    default: return "unexpected exception";
  }
}

// Decodes the fault status code of instruction/data aborts (ESR ISS[5:0]).
const char* fault_status_name(unsigned fsc) {
  switch (fsc & 0x3c) {
    case 0x04: return "translation fault (address not mapped)";
    case 0x08: return "access flag fault";
    case 0x0c: return "permission fault";
    default: break;
  }
  switch (fsc) {
    case 0x10: return "synchronous external abort";
    case 0x21: return "alignment fault";
    case 0x30: return "TLB conflict";
    default: return "other abort";
  }
}

const char* vector_name(unsigned vector) {
  switch (vector % 4) {
    case 1: return "unexpected IRQ";
    case 2: return "unexpected FIQ";
    case 3: return "SError";
    default: return nullptr;  // synchronous: decode ESR
  }
}

}  // namespace

extern "C" [[noreturn]] void aarch64_exception(ExceptionFrame* frame, unsigned vector) {
  const uint64_t esr = read_sysreg(esr_el1);
  const uint64_t far = read_sysreg(far_el1);
  const unsigned ec = static_cast<unsigned>(esr >> 26) & 0x3f;
  const bool is_abort = ec == 0x20 || ec == 0x21 || ec == 0x24 || ec == 0x25;
  hal::FaultReport report{};
  report.core = hal::core_id();
  report.exception = vector_name(vector) ? vector_name(vector) : exception_class_name(ec);
  report.detail = is_abort ? fault_status_name(static_cast<unsigned>(esr) & 0x3f) : "";
  if (vector >= 4 && vector < 8) report.detail = "while handling an exception";
  report.address = is_abort || ec == 0x22 ? far : frame->elr;
  report.pc = frame->elr;
  report.syndrome = esr;
  report.stack_guard_owner = is_abort ? hal::stack_guard_owner(far) : -1;
  hal::report_fault(report);
}
