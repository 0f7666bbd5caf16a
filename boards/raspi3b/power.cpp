// raspi3b exit. Under QEMU (detected from its boot stub at address 0, spin_table.cpp) semihosting
// carries the status to QEMU's exit code, as on qemu-virt-a53. A real Pi has no one to report to
// (and semihosting's HLT would be an undefined instruction there): the exiting core prints the
// status and every core stops; reset or power-cycle the board to run again (with the chainloader
// on the SD card, that brings back the loader, ready for `make chainboot`). If the same core comes
// back here (semihosting disabled, so the HLT itself faulted), it halts; other cores arriving while
// one core is exiting just stop, so one failure is never masked.
#include "exit_path.hpp"
#include "hal/power.hpp"

#include "../../hal/drivers/semihosting.hpp"
#include "hal/console.hpp"
#include "hal/core.hpp"
#include "hal/support/atomic.hpp"
#include "hal/support/format.hpp"

namespace board {
namespace {

bool use_semihosting = true;  // until init knows better: an early panic under QEMU still exits

[[noreturn]] void halt(int status) {
  {
    hal::ConsoleLock lock;
    rt::FixedString<160> line;
    rt::format_to(line, "[c{} I] raspi3b: run ended with status {}; all cores halted (reset the board to run again)\n",
                  hal::core_id(), status);
    hal::console_write(line.c_str(), line.length());
  }
  for (;;) asm volatile("wfe");
}

}  // namespace

void select_exit_path(bool emulated) { use_semihosting = emulated; }

}  // namespace board

namespace hal {

void power_exit(int status) {
  static rt::Atomic<unsigned> exiting_core{~0u};
  unsigned expected = ~0u;
  if (!exiting_core.compare_exchange(expected, core_id())) {
    if (expected == core_id()) board::halt(status);
    for (;;) asm volatile("wfe");
  }
  if (board::use_semihosting) drivers::semihosting_exit(status);
  board::halt(status);
}

}  // namespace hal
