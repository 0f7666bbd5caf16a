// raspi3b doorbells: mailbox 0 of the BCM2836 local block rings a core (write-set raises the
// target's IRQ line); the virtual timer, routed to the same line, bounds every wait. Interrupts stay
// masked in PSTATE: a pending one wakes WFI and is consumed here by polling the mailbox.
#include "devices.hpp"
#include "hal/doorbell.hpp"

#include "hal/core.hpp"
#include "memory_map.hpp"

namespace hal {

void doorbell_ring(unsigned core) { board::local.mailbox_set(core, board::kDoorbellMailbox, 1); }

bool doorbell_poll() { return board::local.mailbox_take(core_id(), board::kDoorbellMailbox) != 0; }

}  // namespace hal
