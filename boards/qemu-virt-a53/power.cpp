// qemu-virt-a53 exit: semihosting carries the status to QEMU's exit code. If the same core comes
// back here (semihosting disabled, so the HLT itself faulted), it falls back to PSCI SYSTEM_OFF;
// other cores arriving while one core is exiting just stop, so one failure is never masked.
#include "devices.hpp"
#include "hal/power.hpp"

#include "../../hal/drivers/semihosting.hpp"
#include "hal/core.hpp"
#include "hal/support/atomic.hpp"

namespace hal {

void power_exit(int status) {
  static rt::Atomic<unsigned> exiting_core{~0u};
  unsigned expected = ~0u;
  if (!exiting_core.compare_exchange(expected, core_id())) {
    if (expected == core_id()) board::psci.system_off();
    for (;;) asm volatile("wfi");
  }
  drivers::semihosting_exit(status);
}

}  // namespace hal
