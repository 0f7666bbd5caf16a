// qemu-virt-rv64 physical addresses (QEMU hw/riscv/virt.c memmap, checked against QEMU 7.2).
#pragma once
#include <stdint.h>

namespace board {

inline constexpr uintptr_t kTestFinisher = 0x00100000;  // sifive_test: exit QEMU with a status
inline constexpr uintptr_t kClint = 0x02000000;
inline constexpr uintptr_t kUart = 0x10000000;           // NS16550A
inline constexpr uintptr_t kRamBase = 0x80000000;
inline constexpr uintptr_t kRamSize = uintptr_t{BOARD_RAM_MB} << 20;
// The shared-memory link window: the top BOARD_LINK_WINDOW_MB of RAM (hal/link_window.hpp).
inline constexpr uintptr_t kLinkWindowSize = uintptr_t{BOARD_LINK_WINDOW_MB} << 20;
inline constexpr uintptr_t kLinkWindowBase = kRamBase + kRamSize - kLinkWindowSize;
inline constexpr uint64_t kTimebaseHz = 10000000;         // CLINT mtime / time CSR frequency
inline constexpr uint32_t kMaxDeviceTreeSize = 1u << 20;

}  // namespace board
