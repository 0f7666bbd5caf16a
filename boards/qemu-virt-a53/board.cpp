// qemu-virt-a53: CPU table, core discovery and start over PSCI, PL011 console, semihosting exit.
#include "devices.hpp"
#include "hal/board.hpp"

#include "hal/core.hpp"
#include "hal/link_window.hpp"
#include "hal/memory_map.hpp"
#include "hal/power.hpp"
#include "../../hal/drivers/semihosting.hpp"
#include "../../hal/arch/aarch64/generic_timer.hpp"
#include "memory_map.hpp"

extern "C" char aarch64_secondary_entry[];

namespace hal::board {
namespace {

unsigned cores_present = 1;

constexpr MemoryRegion kRegions[] = {
    {"devices", ::board::kDeviceBase, ::board::kDeviceSize, MemoryKind::kDevice},
    {"ram", ::board::kRamBase, ::board::kRamSize, MemoryKind::kNormal},
    {"", 0, 0, MemoryKind::kNormal},
};

}  // namespace

const char* name() { return "qemu-virt-a53"; }
const MemoryRegion* memory_regions() { return kRegions; }
LinkWindow link_window() {
  return {reinterpret_cast<uint8_t*>(::board::kLinkWindowBase), ::board::kLinkWindowSize};
}

// With GICv3, QEMU virt numbers cores in clusters of 16: Aff0 = index % 16, Aff1 = index / 16.
uint64_t core_hardware_id(unsigned core) { return ((core / 16) << 8) | (core % 16); }

void init() {
  ::board::uart.init(0, 0);  // QEMU's PL011 needs no divisor
  ::board::gic.init_distributor();
  // A core is present if PSCI knows its MPIDR; QEMU starts all but the boot core powered off.
  cores_present = 1;
  while (cores_present < kMaxCores &&
         ::board::psci.affinity_info(core_hardware_id(cores_present)) != drivers::PsciAffinity::kNotPresent)
    ++cores_present;
}

void init_core(unsigned core) {
  ::board::gic.init_core(core, (1u << ::board::kDoorbellSgi) | (1u << arch::kVirtualTimerPpi));
}

unsigned core_count() { return cores_present; }

StartError release_core(unsigned core) {
  const int64_t result = ::board::psci.cpu_on(core_hardware_id(core),
                                              reinterpret_cast<uintptr_t>(aarch64_secondary_entry), core);
  if (result == drivers::Psci::kSuccess) return StartError::kNone;
  if (result == drivers::Psci::kInvalidParameters) return StartError::kNoSuchCore;
  if (result == drivers::Psci::kAlreadyOn) return StartError::kAlreadyStarted;
  return StartError::kRefused;
}

uint64_t timer_frequency_hz() { return read_sysreg(cntfrq_el0); }

}  // namespace hal::board
