// The board's shared-memory link window: the top BOARD_LINK_WINDOW_MB of its RAM (board.mk), kept
// out of the free memory the runtime hands out. When `tpu` runs the board under QEMU with the guest
// RAM in a file it maps too, the window carries the host link's rings (runtime/link/transport/shm_ring.hpp);
// otherwise it is just unused RAM. Boards without one (the host board) return an empty window.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace hal::board {

struct LinkWindow {
  uint8_t* base = nullptr;
  size_t size = 0;
};

LinkWindow link_window();

}  // namespace hal::board
