// The text console. Bytes written while holding ConsoleLock appear contiguously, so each log line is
// one uninterrupted line even with 16 cores printing. Console text never contains 0x00 (link frames
// share the UART and are delimited by it).
#pragma once
#include <stddef.h>

namespace hal {

void console_write(const char* text, size_t length);
// Next input byte, or -1 if none is waiting.
int console_read_byte();

// Serialises console output between cores. Re-entrant on the same core (a fault while printing
// must still be able to report), so it never deadlocks its own core.
class ConsoleLock {
 public:
  ConsoleLock();
  ~ConsoleLock();
  ConsoleLock(const ConsoleLock&) = delete;
  ConsoleLock& operator=(const ConsoleLock&) = delete;
};

}  // namespace hal
