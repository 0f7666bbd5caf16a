// doorbell_wait for every aarch64 board: poll the board's doorbell (doorbell_poll, boards/<board>/
// doorbell.cpp), else arm the virtual timer for the deadline and wait for an interrupt, which either
// the doorbell or the timer raises. Interrupts stay masked in PSTATE: a pending one wakes WFI and the
// board's doorbell_poll consumes it. The timer is disarmed on the way out, so no stale timer
// interrupt wakes a later wait.
#include "hal/doorbell.hpp"

#include "generic_timer.hpp"
#include "hal/time.hpp"

namespace hal {

bool doorbell_wait(uint64_t deadline_ns) {
  bool rang = false;
  for (;;) {
    if ((rang = doorbell_poll())) break;
    if (time_ns() >= deadline_ns) break;
    arch::virtual_timer_arm(deadline_ns);
    arch::wait_for_interrupt();
  }
  arch::virtual_timer_disarm();
  return rang;
}

}  // namespace hal
