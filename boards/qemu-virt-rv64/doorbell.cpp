// qemu-virt-rv64 doorbells: CLINT MSIP rings a hart; the hart's timer compare bounds every wait.
// mstatus.MIE stays 0: pending MSIP/MTIP wake WFI (mie enables them) but no trap is taken.
#include "hal/doorbell.hpp"

#include "devices.hpp"
#include "hal/core.hpp"
#include "hal/time.hpp"
#include "../../hal/arch/riscv64/csr.hpp"

namespace hal {

void doorbell_ring(unsigned core) { board::clint.raise_software_interrupt(core_hardware_id(core)); }

bool doorbell_poll() { return board::clint.take_software_interrupt(this_core_hardware_id()); }

bool doorbell_wait(uint64_t deadline_ns) {
  const uint64_t hart = this_core_hardware_id();
  const uint64_t deadline_ticks = deadline_ns / 1000 * (board::kTimebaseHz / 1000000);
  bool rang = false;
  set_csr(mie, arch::kMieSoftware | arch::kMieTimer);
  for (;;) {
    if ((rang = doorbell_poll())) break;
    if (time_ns() >= deadline_ns) break;
    board::clint.set_timer_compare(hart, deadline_ticks);
    arch::wait_for_interrupt();
  }
  board::clint.set_timer_compare(hart, ~0ull);
  clear_csr(mie, arch::kMieSoftware | arch::kMieTimer);  // a later ring must not keep waking WFI
  return rang;
}

}  // namespace hal
