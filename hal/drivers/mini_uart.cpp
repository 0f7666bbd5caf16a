// Mini UART programming (BCM2835 ARM Peripherals, chapter 2 "Auxiliaries", errata applied: the
// data size field needs value 3 for 8 bits, and baud = core_clock / (8 * (divisor + 1))).
#include "mini_uart.hpp"

#include "mmio.hpp"

namespace hal::drivers {
namespace {

constexpr uintptr_t kAuxEnables = 0x04;
constexpr uintptr_t kIo = 0x40;
constexpr uintptr_t kInterruptEnable = 0x44;
constexpr uintptr_t kInterruptIdentify = 0x48;
constexpr uintptr_t kLineControl = 0x4c;
constexpr uintptr_t kModemControl = 0x50;
constexpr uintptr_t kLineStatus = 0x54;
constexpr uintptr_t kExtraControl = 0x60;
constexpr uintptr_t kBaud = 0x68;

constexpr uint32_t kAuxMiniUartEnable = 1u << 0;
constexpr uint32_t kLineStatusDataReady = 1u << 0;
constexpr uint32_t kLineStatusTxSpace = 1u << 5;  // the transmit FIFO can accept a byte
constexpr uint32_t kLineStatusTxIdle = 1u << 6;   // FIFO empty and the last bit sent
constexpr uint32_t kLine8Bits = 3;
// FIFOs on (bits 7:6), the transmit FIFO cleared (bit 2); the receive FIFO (bit 1) is kept: bytes a
// host sent while the board booted (tpu's hello, said again until the board answers) tell the link
// service that a host is there (firmware/link_service.cpp host_expected), and a board in a pod
// then waits for its task instead of running alone.
constexpr uint32_t kFifosClearTransmit = 0xc4;
constexpr uint32_t kControlEnableTxRx = (1u << 0) | (1u << 1);

}  // namespace

void MiniUart::init(uint32_t core_clock_hz, uint32_t baud) const {
  mmio::write32(base_ + kAuxEnables, mmio::read32(base_ + kAuxEnables) | kAuxMiniUartEnable);
  mmio::write32(base_ + kExtraControl, 0);  // receiver and transmitter off while configuring
  mmio::write32(base_ + kInterruptEnable, 0);
  mmio::write32(base_ + kLineControl, kLine8Bits);
  mmio::write32(base_ + kModemControl, 0);
  mmio::write32(base_ + kInterruptIdentify, kFifosClearTransmit);
  if (core_clock_hz != 0 && baud != 0) {
    const uint32_t divisor = (core_clock_hz + 4 * baud) / (8 * baud) - 1;  // rounded
    mmio::write32(base_ + kBaud, divisor & 0xffff);
  }
  mmio::write32(base_ + kExtraControl, kControlEnableTxRx);  // no hardware flow control
}

void MiniUart::write_byte(uint8_t byte) const {
  while ((mmio::read32(base_ + kLineStatus) & kLineStatusTxSpace) == 0) {
  }
  mmio::write32(base_ + kIo, byte);
}

void MiniUart::flush(unsigned max_polls) const {
  for (unsigned i = 0; i < max_polls && (mmio::read32(base_ + kLineStatus) & kLineStatusTxIdle) == 0; ++i) {
  }
}

int MiniUart::read_byte() const {
  if ((mmio::read32(base_ + kLineStatus) & kLineStatusDataReady) == 0) return -1;
  return static_cast<int>(mmio::read32(base_ + kIo) & 0xff);
}

}  // namespace hal::drivers
