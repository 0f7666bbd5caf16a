// Attaching to a board that is already running instead of launching one: a serial device (a real
// board's UART adapter, or a pty) set to raw mode at a given baud rate, or a Unix socket (QEMU
// started with -serial unix:PATH,server). Both become one non-blocking file descriptor behind the
// BoardChannel interface; writes queue and go out as the descriptor takes them.
#pragma once
#include <chrono>
#include <memory>
#include <string>

#include "board_channel.hpp"

namespace tpu {

// Opens `device` raw (8N1, no flow control, no echo) at `baud`; nothing with `error` on failure.
std::unique_ptr<BoardChannel> attach_serial(const std::string& device, unsigned baud, std::string& error);

// Connects to the Unix socket at `path`, retrying until `patience` passes (QEMU may still be
// creating it); nothing with `error` on failure.
std::unique_ptr<BoardChannel> attach_socket(const std::string& path, std::chrono::milliseconds patience,
                                            std::string& error);

}  // namespace tpu
