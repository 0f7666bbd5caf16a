// raspi3b generic-timer sanity check. All time (time_ns, deadlines, timeouts) is CNTVCT / CNTFRQ,
// and CNTFRQ_EL0 is only writable at the highest exception level, which the runtime never runs at:
// the Pi firmware's armstub sets it (19.2 MHz on a real Pi 3, the crystal behind the local timer
// prescaler) and QEMU reports its own counter rate (62.5 MHz in QEMU 7.2). So the runtime cannot
// fix it, only check it: against the BCM2835 system timer, a free-running 1 MHz counter.
#include "timer_check.hpp"

#include "../../hal/arch/aarch64/sysreg.hpp"
#include "../../hal/drivers/mmio.hpp"
#include "hal/console.hpp"
#include "hal/fault.hpp"
#include "memory_map.hpp"
#include "hal/support/format.hpp"

namespace board {
namespace {

constexpr uintptr_t kSystemTimerLow = kSystemTimer + 0x04;  // CLO, microseconds
constexpr uint32_t kWindowUs = 10000;

uint32_t system_timer_us() { return hal::mmio::read32(kSystemTimerLow); }

void warn(const rt::FormatBuffer& text) {
  hal::ConsoleLock lock;
  hal::console_write("[c0 W] ", 7);
  hal::console_write(text.c_str(), text.length());
  hal::console_write("\n", 1);
}

}  // namespace

void check_timer_frequency() {
  const uint64_t claimed_hz = read_sysreg(cntfrq_el0);
  if (claimed_hz == 0)
    hal::panic("CNTFRQ_EL0 is 0, so no time or timeout works: the boot firmware did not set the generic "
               "timer frequency (use the stock armstub: no armstub= or kernel_old= in config.txt)");
  const uint32_t start_us = system_timer_us();
  const uint64_t start_ticks = read_sysreg(cntvct_el0);
  uint32_t elapsed_us = 0;
  uint64_t elapsed_ticks = 0;
  // Bounded by the counter itself: a system timer that does not count is reported, not waited on.
  while ((elapsed_us = system_timer_us() - start_us) < kWindowUs) {
    elapsed_ticks = read_sysreg(cntvct_el0) - start_ticks;
    if (elapsed_ticks > claimed_hz) break;  // a whole second by CNTFRQ's account
  }
  elapsed_ticks = read_sysreg(cntvct_el0) - start_ticks;
  rt::FixedString<200> line;
  if (elapsed_us < kWindowUs) {
    rt::format_to(line, "raspi3b: the system timer did not count 10 ms while the generic timer counted {} ticks; "
                  "trusting CNTFRQ_EL0 = {} Hz", elapsed_ticks, claimed_hz);
    warn(line);
    return;
  }
  const uint64_t measured_hz = elapsed_ticks * 1000000ull / elapsed_us;
  const uint64_t difference = measured_hz > claimed_hz ? measured_hz - claimed_hz : claimed_hz - measured_hz;
  if (difference * 20 > claimed_hz) {
    rt::format_to(line, "raspi3b: CNTFRQ_EL0 says {} Hz but the generic timer counts about {} Hz (against the "
                  "1 MHz system timer): every time and timeout is off by that factor", claimed_hz, measured_hz);
    warn(line);
  }
}

}  // namespace board
