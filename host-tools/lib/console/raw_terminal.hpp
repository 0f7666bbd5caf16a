// The user's terminal in raw mode for as long as this object lives (no line buffering, no echo, no
// signals from Ctrl-C: every key goes to the board, as a serial terminal program does). Restores
// the previous settings on destruction; does nothing if stdin is not a terminal.
#pragma once
#include <termios.h>

namespace tpu {

class RawTerminal {
 public:
  RawTerminal();
  ~RawTerminal();
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

  bool active() const { return active_; }

 private:
  termios saved_{};
  bool active_ = false;
};

}  // namespace tpu
