// Console and host link over the board's one UART (boards/<board>/devices.hpp defines
// board::uart, any driver with write_byte/read_byte). Link frames are 0x00-delimited and console
// text never contains 0x00, so both share the wire; the host splits them.
#include "devices.hpp"
#include "hal/console.hpp"
#include "hal/doorbell.hpp"
#include "hal/link.hpp"

namespace hal {

void console_write(const char* text, size_t length) {
  for (size_t i = 0; i < length; ++i) board::uart.write_byte(static_cast<uint8_t>(text[i]));
}
int console_read_byte() { return board::uart.read_byte(); }

namespace {
volatile bool any_link_byte_written = false;  // a plain flag: set before the bytes, read by a fault report
}  // namespace

void link_write(const uint8_t* bytes, size_t length) {
  any_link_byte_written = true;
  for (size_t i = 0; i < length; ++i) board::uart.write_byte(bytes[i]);
}
bool link_written() { return any_link_byte_written; }
int link_read_byte() { return board::uart.read_byte(); }
bool link_host_attached() { return false; }
bool link_host_shares_cpus() { return false; }
bool link_wakeable() { return false; }
void link_sleep(const uint32_t*, uint32_t, uint64_t deadline_ns) { (void)doorbell_wait(deadline_ns); }
void link_wake(const uint32_t*) {}

}  // namespace hal
