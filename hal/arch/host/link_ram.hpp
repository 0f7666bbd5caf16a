// The host board's RAM file: when tpu launches the host board with the shared-memory link
// (`--link-ram FILE`, made by tpu's ShmLink as it makes QEMU's guest RAM file), the process maps
// that file and uses it as a bare-metal board uses its RAM: the top BOARD_LINK_WINDOW_MB is the
// link window (hal/link_window.hpp), everything below it is the free memory the runtime hands out as
// tensor memory, so tpu places infeed tuples and host-call results straight into it. Without the
// option (make run, --link uart) the board has no window and reserves private memory instead.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace hal::host {

struct LinkRam {
  uint8_t* base = nullptr;  // nullptr: no RAM file (no shared-memory link)
  size_t bytes = 0;
  size_t window_bytes = 0;  // BOARD_LINK_WINDOW_MB, at the top

  uint8_t* window() const { return base + bytes - window_bytes; }
  size_t below_window() const { return bytes - window_bytes; }  // the board's free memory
};

// Maps `path` (read-write, shared). Exits the process with a message naming the file if it cannot be
// used: a board that was told to share memory and cannot must not run without its host.
void map_link_ram(const char* path);
LinkRam link_ram();

}  // namespace hal::host
