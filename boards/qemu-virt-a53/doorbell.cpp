// qemu-virt-a53 doorbells: GICv3 SGI 0 rings a core; the virtual timer bounds every wait. Interrupts
// stay masked in PSTATE: a pending one wakes WFI and is acknowledged here by polling the GIC.
#include "devices.hpp"
#include "hal/doorbell.hpp"

#include "generic_timer.hpp"
#include "hal/core.hpp"
#include "memory_map.hpp"

namespace hal {

void doorbell_ring(unsigned core) { board::gic.send_sgi(board::kDoorbellSgi, core_hardware_id(core)); }

bool doorbell_poll() {
  bool rang = false;
  for (;;) {
    const uint32_t id = board::gic.acknowledge();
    if (id == drivers::GicV3::kSpurious) return rang;
    if (id == arch::kVirtualTimerPpi) arch::virtual_timer_disarm();
    if (id == board::kDoorbellSgi) rang = true;
    board::gic.end_of_interrupt(id);
  }
}

}  // namespace hal
