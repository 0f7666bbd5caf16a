// raspi3b physical addresses (BCM2837: BCM2835 ARM Peripherals with the peripheral window moved to
// 0x3F000000, QA7 rev 3.4 for the local block; checked against QEMU 7.2 -M raspi3b).
#pragma once
#include <stdint.h>

namespace board {

// ARM RAM starts at 0; the top gpu_mem MiB (config.txt gpu_mem=64) belong to the VideoCore.
inline constexpr uintptr_t kRamBase = 0x00000000;
inline constexpr uintptr_t kRamSize = uintptr_t{BOARD_RAM_MB} << 20;
// The shared-memory link window: the top BOARD_LINK_WINDOW_MB of RAM (hal/link_window.hpp).
inline constexpr uintptr_t kLinkWindowSize = uintptr_t{BOARD_LINK_WINDOW_MB} << 20;
inline constexpr uintptr_t kLinkWindowBase = kRamBase + kRamSize - kLinkWindowSize;
inline constexpr uintptr_t kPeripheralBase = 0x3F000000;  // VideoCore bus 0x7E000000
inline constexpr uintptr_t kPeripheralSize = 0x01000000;
inline constexpr uintptr_t kLocalBase = 0x40000000;       // BCM2836 local peripherals (one 2 MiB block)
inline constexpr uintptr_t kLocalSize = 0x00200000;

inline constexpr uintptr_t kSystemTimer = kPeripheralBase + 0x003000;  // free-running 1 MHz counter
inline constexpr uintptr_t kGpio = kPeripheralBase + 0x200000;
inline constexpr uintptr_t kUart0 = kPeripheralBase + 0x201000;        // PL011: the console
inline constexpr uintptr_t kAux = kPeripheralBase + 0x215000;          // AUX block; mini UART at + 0x40: the link

// Spin table of the firmware's armstub (and of QEMU's boot stub): core k waits in WFE for a non-zero
// entry address at 0xd8 + 8 * k (0xe0 core 1, 0xe8 core 2, 0xf0 core 3), then branches to it.
inline constexpr uintptr_t kSpinTable = 0xd8;

inline constexpr unsigned kCores = 4;
inline constexpr unsigned kDoorbellMailbox = 0;  // of the 4 local mailboxes per core

// Clocks as config.txt fixes them (core_freq=250, init_uart_clock=48000000) and the console baud.
inline constexpr uint32_t kCoreClockHz = 250000000;
inline constexpr uint32_t kPl011ClockHz = 48000000;
inline constexpr uint32_t kBaud = 115200;
inline constexpr unsigned kUartTxPin = 14;  // header pin 8
inline constexpr unsigned kUartRxPin = 15;  // header pin 10

}  // namespace board
