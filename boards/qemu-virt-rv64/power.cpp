// qemu-virt-rv64 exit: semihosting carries the status to QEMU's exit code. If the same core comes
// back here (semihosting disabled, so the EBREAK trapped), the sifive_test finisher ends QEMU with
// the status instead; other cores arriving while one is exiting just stop.
#include "hal/power.hpp"

#include "devices.hpp"
#include "hal/core.hpp"
#include "hal/support/atomic.hpp"
#include "../../hal/drivers/semihosting.hpp"

namespace hal {

void power_exit(int status) {
  static rt::Atomic<unsigned> exiting_core{~0u};
  unsigned expected = ~0u;
  if (!exiting_core.compare_exchange(expected, core_id())) {
    if (expected == core_id()) board::test_finisher.exit(status);
    for (;;) asm volatile("wfi");
  }
  drivers::semihosting_exit(status);
}

}  // namespace hal
