// Per-core tensor memory ("HBM"): the board's free memory split evenly between the cores of the
// run, one Arena each. hbm_init runs once on the boot core before any core uses hbm().
#pragma once
#include "arena.hpp"

namespace rt {

void hbm_init(unsigned cores);
Arena& hbm();                       // the calling core's arena
Arena& hbm_of(unsigned core);

}  // namespace rt
