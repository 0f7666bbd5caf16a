// NS16550A register programming (register offsets with a stride of one byte).
#include "ns16550.hpp"

#include "mmio.hpp"

namespace hal::drivers {
namespace {

constexpr uintptr_t kData = 0;         // THR / RBR, DLL when DLAB=1
constexpr uintptr_t kInterruptEnable = 1;  // IER, DLM when DLAB=1
constexpr uintptr_t kFifoControl = 2;
constexpr uintptr_t kLineControl = 3;
constexpr uintptr_t kLineStatus = 5;

constexpr uint8_t kLineStatusDataReady = 1u << 0;
constexpr uint8_t kLineStatusTxEmpty = 1u << 5;
constexpr uint8_t kLine8N1 = 0x03;
constexpr uint8_t kDivisorLatch = 0x80;

}  // namespace

void Ns16550::init(uint32_t uart_clock_hz, uint32_t baud) const {
  mmio::write8(base_ + kInterruptEnable, 0);
  if (uart_clock_hz != 0 && baud != 0) {
    const uint32_t divisor = (uart_clock_hz + 8 * baud) / (16 * baud);
    mmio::write8(base_ + kLineControl, kDivisorLatch);
    mmio::write8(base_ + kData, static_cast<uint8_t>(divisor));
    mmio::write8(base_ + kInterruptEnable, static_cast<uint8_t>(divisor >> 8));
  }
  mmio::write8(base_ + kLineControl, kLine8N1);
  mmio::write8(base_ + kFifoControl, 0x07);  // enable and clear FIFOs
}

void Ns16550::write_byte(uint8_t byte) const {
  while ((mmio::read8(base_ + kLineStatus) & kLineStatusTxEmpty) == 0) {
  }
  mmio::write8(base_ + kData, byte);
}

int Ns16550::read_byte() const {
  if ((mmio::read8(base_ + kLineStatus) & kLineStatusDataReady) == 0) return -1;
  return mmio::read8(base_ + kData);
}

}  // namespace hal::drivers
