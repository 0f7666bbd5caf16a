// AArch64 MMU: identity map of the board memory map, with each core's stack guard page unmapped.
#pragma once

namespace hal::arch {

// Boot core, MMU still off: builds the translation tables from the board memory map.
void mmu_build_tables();
// Every core: loads the tables and turns on MMU, data and instruction caches.
void mmu_enable();

}  // namespace hal::arch
