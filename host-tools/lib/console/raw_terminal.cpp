// Raw terminal mode (raw_terminal.hpp).
#include "raw_terminal.hpp"

#include <unistd.h>

namespace tpu {

RawTerminal::RawTerminal() {
  if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_) != 0) return;
  termios raw = saved_;
  cfmakeraw(&raw);
  raw.c_oflag |= OPOST;  // keep "\n" -> "\r\n" on output, so board lines start at the left edge
  active_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
}

RawTerminal::~RawTerminal() {
  if (active_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
}

}  // namespace tpu
