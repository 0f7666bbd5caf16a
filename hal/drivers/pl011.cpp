// PL011 register programming (Arm PrimeCell UART TRM DDI 0183).
#include "pl011.hpp"

#include "mmio.hpp"

namespace hal::drivers {
namespace {

constexpr uintptr_t kData = 0x00;
constexpr uintptr_t kFlags = 0x18;
constexpr uintptr_t kIntegerBaud = 0x24;
constexpr uintptr_t kFractionalBaud = 0x28;
constexpr uintptr_t kLineControl = 0x2c;
constexpr uintptr_t kControl = 0x30;
constexpr uintptr_t kInterruptClear = 0x44;

constexpr uint32_t kFlagTxFull = 1u << 5;
constexpr uint32_t kFlagRxEmpty = 1u << 4;
constexpr uint32_t kLine8BitsFifo = (3u << 5) | (1u << 4);
constexpr uint32_t kControlEnableTxRx = (1u << 0) | (1u << 8) | (1u << 9);

}  // namespace

void Pl011::init(uint32_t uart_clock_hz, uint32_t baud) const {
  mmio::write32(base_ + kControl, 0);
  mmio::write32(base_ + kInterruptClear, 0x7ff);
  if (uart_clock_hz != 0 && baud != 0) {
    // Divisor in 1/64ths: clock / (16 * baud), rounded.
    const uint32_t divisor64 = static_cast<uint32_t>((uint64_t{uart_clock_hz} * 4 + baud / 2) / baud);
    mmio::write32(base_ + kIntegerBaud, divisor64 >> 6);
    mmio::write32(base_ + kFractionalBaud, divisor64 & 0x3f);
  }
  mmio::write32(base_ + kLineControl, kLine8BitsFifo);
  mmio::write32(base_ + kControl, kControlEnableTxRx);
}

void Pl011::write_byte(uint8_t byte) const {
  while (mmio::read32(base_ + kFlags) & kFlagTxFull) {
  }
  mmio::write32(base_ + kData, byte);
}

int Pl011::read_byte() const {
  if (mmio::read32(base_ + kFlags) & kFlagRxEmpty) return -1;
  return static_cast<int>(mmio::read32(base_ + kData) & 0xff);
}

}  // namespace hal::drivers
