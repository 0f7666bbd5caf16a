// qemu-virt-rv64 byte streams: console and host link share the one NS16550A.
#include "devices.hpp"
#include "hal/console.hpp"
#include "hal/link.hpp"

namespace hal {

void console_write(const char* text, size_t length) {
  for (size_t i = 0; i < length; ++i) board::uart.write_byte(static_cast<uint8_t>(text[i]));
}
int console_read_byte() { return board::uart.read_byte(); }

void link_write(const uint8_t* bytes, size_t length) {
  for (size_t i = 0; i < length; ++i) board::uart.write_byte(bytes[i]);
}
int link_read_byte() { return board::uart.read_byte(); }

}  // namespace hal
