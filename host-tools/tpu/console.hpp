// `tpu console [--board B] [--cores N] [--app APP] [--serial DEV | --socket PATH]`: a serial
// terminal to a board's console, by default the firmware shell (the `shell` app, firmware/shell.hpp).
// Interactive on a terminal (raw mode, Ctrl-] quits); piped input goes a line at a time, each line
// once the shell shows a new prompt, and the session ends when the board does (or goes quiet after
// the last line), so scripts and tests can drive the shell. A board that ends with the shell's
// `reboot` is launched again, and the lines after the reboot go to it.
#pragma once
#include "host-tools/lib/board/board_launch.hpp"

namespace tpu {

struct ConsoleOptions {
  BoardTarget target{"qemu-virt-a53", "shell", std::nullopt, 4, LinkChoice::kUart};  // the shell is text only
  AttachTarget attach;
  double timeout_s = 3600;
};

// Runs the terminal session; the exit status (the board's, 4 after the timeout, 130 after Ctrl-C and
// 143 after SIGTERM, 2 if the board could not be started).
int console_run(const ConsoleOptions& options);

}  // namespace tpu
