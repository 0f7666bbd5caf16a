// Sending a boot image to the raspi3b UART chainloader (boards/raspi3b/chainloader/main.cpp) over a
// board tpu attached to (`tpu run --serial DEV --chainboot`): the loader sits on the Pi's SD card, so
// every run boots the image just built, and the board boots after tpu spoke (what a board of a pod
// needs to learn its task). The protocol, the loader's:
//   loader: "raspi3b-chainboot: ready" about once a second while idle
//   host:   "TPUBOOT1", u32 size, u32 CRC-32 (zlib's), little-endian
//   loader: "raspi3b-chainboot: receiving <size> bytes" (or "... ERROR: <why>")
//   host:   the image (only then: the mini UART's receive FIFO holds 8 bytes)
//   loader: "raspi3b-chainboot: OK, starting the image" (or "... ERROR: <why>"), then jumps to it.
// Each wait has a deadline and says what it waited for; once the header is out, the loader's ERROR
// line ends the upload with the loader's reason. What was waiting on the line before (a loader's old
// lines, or its error about an upload someone stopped) is dropped, and a fresh ready is waited for.
// Text on the line that is not the loader's (a running image's console: the board was not reset into
// the loader) is kept for the error message.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "board_channel.hpp"

namespace tpu {

struct ChainloaderUpload {
  std::optional<std::string> error;  // why the image did not start; nothing once it did
  bool timed_out = false;            // the error is the deadline's
  std::vector<uint8_t> after_ok;     // bytes that came after the loader's OK line (the image's first output)
};

// Waits for the loader's ready line, sends `image` and waits for the OK, all before `deadline` (the
// run's: the loader itself reports a gap of 10 s in the image, and how fast the bytes go depends on
// the line, or under QEMU on how busy the machine is). Notes go to `notes`.
ChainloaderUpload upload_to_chainloader(BoardChannel& channel, std::span<const uint8_t> image,
                                        std::chrono::steady_clock::time_point deadline, std::ostream& notes);

}  // namespace tpu
