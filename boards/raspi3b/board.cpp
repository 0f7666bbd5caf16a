// raspi3b: CPU table (4 Cortex-A53, MPIDR Aff0 = core), memory map, console/link UARTs on the
// header pins, per-core interrupt routing of the BCM2836 local block, spin-table start.
#include "devices.hpp"
#include "hal/board.hpp"

#include "exit_path.hpp"
#include "hal/core.hpp"
#include "hal/link_window.hpp"
#include "hal/memory_map.hpp"
#include "memory_map.hpp"
#include "spin_table.hpp"
#include "timer_check.hpp"
#include "../../hal/arch/aarch64/sysreg.hpp"

namespace hal::board {
namespace {

constexpr MemoryRegion kRegions[] = {
    {"ram", ::board::kRamBase, ::board::kRamSize, MemoryKind::kNormal},
    {"peripherals", ::board::kPeripheralBase, ::board::kPeripheralSize, MemoryKind::kDevice},
    {"local peripherals", ::board::kLocalBase, ::board::kLocalSize, MemoryKind::kDevice},
    {"", 0, 0, MemoryKind::kNormal},
};

}  // namespace

const char* name() { return "raspi3b"; }
const MemoryRegion* memory_regions() { return kRegions; }
LinkWindow link_window() {
  return {reinterpret_cast<uint8_t*>(::board::kLinkWindowBase), ::board::kLinkWindowSize};
}

// One cluster of four: MPIDR_EL1 Aff0 is the core number (bit 31, RES1, is not part of the id).
uint64_t core_hardware_id(unsigned core) { return core; }

void init() {
  // The Pi 3B header's UART pins (GPIO 14/15) go to the mini UART (ALT5), as enable_uart=1 sets them.
  ::board::gpio.set_function(::board::kUartTxPin, drivers::GpioFunction::kAlt5);
  ::board::gpio.set_function(::board::kUartRxPin, drivers::GpioFunction::kAlt5);
  ::board::gpio.disable_pulls((1u << ::board::kUartTxPin) | (1u << ::board::kUartRxPin));
  ::board::uart.console().init(::board::kPl011ClockHz, ::board::kBaud);
  ::board::uart.link().init(::board::kCoreClockHz, ::board::kBaud);
  ::board::select_exit_path(::board::booted_by_qemu_stub());
  ::board::check_timer_frequency();
}

void init_core(unsigned core) {
  // Doorbell mailbox and the virtual timer (deadline wake-ups) to this core's IRQ line; a ring left
  // over from before this boot is dropped.
  ::board::local.route_core_irqs(core, drivers::Bcm2836Local::kTimerVirtual, 1u << ::board::kDoorbellMailbox);
  (void)::board::local.mailbox_take(core, ::board::kDoorbellMailbox);
}

unsigned core_count() { return ::board::kCores; }

StartError release_core(unsigned core) {
  if (core == 0 || core >= ::board::kCores) return StartError::kNoSuchCore;
  ::board::spin_table_release(core);
  return StartError::kNone;
}

uint64_t timer_frequency_hz() { return read_sysreg(cntfrq_el0); }

}  // namespace hal::board
