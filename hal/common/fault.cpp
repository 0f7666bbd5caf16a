// Printing fault reports and panics: one self-contained block of console lines, then exit.
#include "hal/fault.hpp"
#include "hal/support/panic.hpp"

#include "hal/console.hpp"
#include "hal/core.hpp"
#include "hal/link.hpp"
#include "hal/power.hpp"
#include "hal/support/format.hpp"

namespace hal {
namespace {

// A 0x00 first: if this core was cut off in the middle of a link frame, the host's decoder ends
// that (now broken) frame here and reads the report as text (runtime/link/transport/decoder.hpp).
// Only where frames went out: a board no host spoke to keeps a plain-text console (make run).
void end_any_partial_frame() {
  if (!link_written()) return;
  const uint8_t delimiter = 0;
  link_write(&delimiter, 1);
}

void write_line(const rt::FormatBuffer& line) {
  console_write(line.c_str(), line.length());
  console_write("\n", 1);
}

}  // namespace

void report_fault(const FaultReport& report) {
  {
    ConsoleLock lock;
    end_any_partial_frame();
    rt::FixedString<256> line;
    rt::format_to(line, "\n*** FAULT on core {}: {}{}{} at address {:#018x}", report.core, report.exception,
                  report.detail[0] ? ": " : "", report.detail, report.address);
    write_line(line);
    line.clear();
    rt::format_to(line, "*** core {} pc {:#018x} syndrome {:#x}", report.core, report.pc, report.syndrome);
    if (report.image_base != 0 && report.pc >= report.image_base)  // what addr2line takes for a PIE
      rt::format_to(line, " (image+{:#x})", report.pc - report.image_base);
    write_line(line);
    if (report.stack_guard_owner >= 0) {
      line.clear();
      rt::format_to(line, "*** core {}: stack overflow (address is in core {}'s stack guard page)", report.core,
                    report.stack_guard_owner);
      write_line(line);
    }
  }
  power_exit(kExitFault);
}

void panic(const char* message) {
  {
    ConsoleLock lock;
    end_any_partial_frame();
    rt::FixedString<256> line;
    rt::format_to(line, "\n*** PANIC on core {}: {}", core_id(), message);
    write_line(line);
  }
  power_exit(kExitFail);
}

}  // namespace hal

// The runtime's panic (hal/support/panic.hpp) is the HAL's.
void rt::panic(const char* message) { hal::panic(message); }
