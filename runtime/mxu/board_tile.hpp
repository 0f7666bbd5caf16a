// The tile size of every core's software MXU on this board (at most 128), sized to the board's cores
// and caches: an ML choice, so it lives with the MXU; the number is board data (BOARD_MXU_TILE in
// boards/<board>/board.mk, passed by the Makefile).
#pragma once

#ifndef BOARD_MXU_TILE
#error "BOARD_MXU_TILE comes from boards/<board>/board.mk through the Makefile"
#endif

namespace rt {

inline constexpr unsigned kMxuTile = BOARD_MXU_TILE;

}  // namespace rt
