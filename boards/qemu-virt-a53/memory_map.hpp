// qemu-virt-a53 physical addresses (QEMU hw/arm/virt.c memmap, checked against QEMU 7.2).
#pragma once
#include <stdint.h>

namespace board {

inline constexpr uintptr_t kGicDistributor = 0x08000000;
inline constexpr uintptr_t kGicRedistributors = 0x080a0000;
inline constexpr uintptr_t kGicRedistributorStride = 0x20000;  // RD + SGI frames per core
inline constexpr uintptr_t kUart = 0x09000000;                  // PL011
inline constexpr uintptr_t kDeviceBase = 0x08000000;            // GIC .. PCIe, below RAM
inline constexpr uintptr_t kDeviceSize = 0x38000000;
inline constexpr uintptr_t kRamBase = 0x40000000;
inline constexpr uintptr_t kRamSize = uintptr_t{BOARD_RAM_MB} << 20;
// The shared-memory link window: the top BOARD_LINK_WINDOW_MB of RAM (hal/link_window.hpp).
inline constexpr uintptr_t kLinkWindowSize = uintptr_t{BOARD_LINK_WINDOW_MB} << 20;
inline constexpr uintptr_t kLinkWindowBase = kRamBase + kRamSize - kLinkWindowSize;
inline constexpr unsigned kDoorbellSgi = 0;

}  // namespace board
