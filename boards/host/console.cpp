// host byte streams: console on stdout; the link is not wired yet on the host board (the host-link
// issue connects it in-process), so using it fails loudly.
#include <unistd.h>

#include "hal/console.hpp"
#include "hal/fault.hpp"
#include "hal/link.hpp"

namespace hal {

void console_write(const char* text, size_t length) {
  while (length > 0) {
    const ssize_t written = write(STDOUT_FILENO, text, length);
    if (written <= 0) return;  // stdout closed: nothing left to tell anyone
    text += written;
    length -= static_cast<size_t>(written);
  }
}

int console_read_byte() {
  unsigned char byte;
  return read(STDIN_FILENO, &byte, 1) == 1 ? byte : -1;
}

void link_write(const uint8_t*, size_t) { panic("host board: the host link is not implemented yet"); }
int link_read_byte() { panic("host board: the host link is not implemented yet"); }

}  // namespace hal
