// Splitting free memory into per-core arenas (64-byte aligned slices).
#include "hbm.hpp"

#include "hal/core.hpp"
#include "hal/memory_map.hpp"

namespace rt {
namespace {

Arena arenas[hal::kMaxCores];

}  // namespace

void hbm_init(unsigned cores) {
  const hal::FreeMemory memory = hal::free_memory();
  const size_t slice = memory.size / cores & ~size_t{63};
  for (unsigned core = 0; core < cores; ++core) arenas[core] = Arena(core, memory.base + core * slice, slice);
}

Arena& hbm() { return arenas[hal::core_id()]; }
Arena& hbm_of(unsigned core) { return arenas[core]; }

}  // namespace rt
