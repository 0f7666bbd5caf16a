// WFE/SEV emulation for RISC-V, which has neither: wait_for_event() sleeps in WFI with this hart's
// CLINT timer armed a few microseconds ahead (like Arm's timer event stream), so waiting harts
// sleep instead of spinning, and every wait re-checks its condition soon. Sleeping matters under
// QEMU: a spinning hart would hold the single TCG thread of an -icount run for its whole slice.
#include "devices.hpp"
#include "hal/core.hpp"
#include "hal/event.hpp"
#include "../../hal/arch/riscv64/csr.hpp"

namespace hal {
namespace {

constexpr uint64_t kWakeAfterTicks = 100;  // 10 us at the 10 MHz timebase

}  // namespace

void wait_for_event() {
  const uint64_t hart = this_core_hardware_id();
  set_csr(mie, arch::kMieTimer);
  board::clint.set_timer_compare(hart, board::clint.time() + kWakeAfterTicks);
  arch::wait_for_interrupt();
  board::clint.set_timer_compare(hart, ~0ull);
}

void send_event() { asm volatile("fence rw, rw" ::: "memory"); }

}  // namespace hal
