// Low-power spin-waiting: every spin loop calls wait_for_event() (WFE on Arm, WFI/pause on RISC-V,
// yield on the host) and writers call send_event() (SEV) after publishing data others wait for.
// Only for short spins: QEMU never halts a vCPU on WFE, so a long wait sleeps on the core's doorbell
// instead (rt::wait_until after 1 ms, the mailboxes after their poll, a parked core).
#pragma once

namespace hal {

void cpu_relax();        // a hint inside a short spin (no sleep; the host board yields its CPU when
                         // its cores outnumber the CPUs)
void wait_for_event();   // may sleep until an event or interrupt; may also return spuriously
void send_event();       // wakes all cores sleeping in wait_for_event()

}  // namespace hal
