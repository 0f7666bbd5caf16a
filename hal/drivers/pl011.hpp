// Arm PL011 UART: polled transmit and receive (no interrupts, no DMA).
#pragma once
#include <stdint.h>

namespace hal::drivers {

class Pl011 {
 public:
  constexpr explicit Pl011(uintptr_t base) : base_(base) {}
  // 8N1, FIFOs on. uart_clock_hz/baud set the divisor; pass 0 to keep the firmware's setting.
  void init(uint32_t uart_clock_hz, uint32_t baud) const;
  void write_byte(uint8_t byte) const;
  int read_byte() const;  // -1 if the receive FIFO is empty

 private:
  uintptr_t base_;
};

}  // namespace hal::drivers
