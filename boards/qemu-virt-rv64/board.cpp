// qemu-virt-rv64: core discovery from the device tree, hart release, memory map.
#include "hal/board.hpp"

#include "devices.hpp"
#include "hal/core.hpp"
#include "hal/fault.hpp"
#include "hal/link_window.hpp"
#include "hal/memory_map.hpp"
#include "../../hal/common/fdt.hpp"

extern "C" const void* riscv_device_tree;
extern "C" volatile uint64_t riscv_hart_release[];

namespace hal::board {
namespace {

unsigned cores_present = 1;

constexpr MemoryRegion kRegions[] = {
    {"ram", ::board::kRamBase, ::board::kRamSize, MemoryKind::kNormal},
    {"", 0, 0, MemoryKind::kNormal},
};

}  // namespace

const char* name() { return "qemu-virt-rv64"; }
const MemoryRegion* memory_regions() { return kRegions; }
LinkWindow link_window() {
  return {reinterpret_cast<uint8_t*>(::board::kLinkWindowBase), ::board::kLinkWindowSize};
}

// QEMU virt numbers harts 0..n-1 in one socket.
uint64_t core_hardware_id(unsigned core) { return core; }

void init() {
  ::board::uart.init(0, 0);
  const unsigned cpus = fdt_count_cpus(riscv_device_tree, ::board::kMaxDeviceTreeSize);
  if (cpus == 0) panic("no valid device tree from the boot loader: cannot count harts");
  cores_present = cpus < kMaxCores ? cpus : kMaxCores;
}

void init_core(unsigned core) {
  ::board::clint.take_software_interrupt(core_hardware_id(core));  // the release doorbell
  ::board::clint.set_timer_compare(core_hardware_id(core), ~0ull);
}

unsigned core_count() { return cores_present; }

StartError release_core(unsigned core) {
  __atomic_store_n(&riscv_hart_release[core_hardware_id(core)], 1, __ATOMIC_RELEASE);
  ::board::clint.raise_software_interrupt(core_hardware_id(core));
  return StartError::kNone;
}

uint64_t timer_frequency_hz() { return ::board::kTimebaseHz; }

}  // namespace hal::board
