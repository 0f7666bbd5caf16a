// NS16550A-compatible UART: polled transmit and receive, byte-wide registers.
#pragma once
#include <stdint.h>

namespace hal::drivers {

class Ns16550 {
 public:
  constexpr explicit Ns16550(uintptr_t base) : base_(base) {}
  // 8N1, FIFOs on, interrupts off. uart_clock_hz/baud set the divisor; 0 keeps the current one.
  void init(uint32_t uart_clock_hz, uint32_t baud) const;
  void write_byte(uint8_t byte) const;
  int read_byte() const;  // -1 if nothing was received

 private:
  uintptr_t base_;
};

}  // namespace hal::drivers
