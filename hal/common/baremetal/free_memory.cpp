// Free memory on bare-metal boards: from the end of the image (page aligned) to the end of the RAM
// region the image lives in, as the board's memory map describes it.
#include "hal/fault.hpp"
#include "hal/memory_map.hpp"

extern "C" char __image_end[];

namespace hal {

FreeMemory free_memory() {
  const uintptr_t start = (reinterpret_cast<uintptr_t>(__image_end) + 4095) & ~uintptr_t{4095};
  for (const MemoryRegion* region = board::memory_regions(); region->size != 0; ++region) {
    if (region->kind != MemoryKind::kNormal) continue;
    if (start >= region->base && start <= region->base + region->size)
      return FreeMemory{reinterpret_cast<uint8_t*>(start), region->base + region->size - start};
  }
  panic("the image does not end inside a RAM region of the board's memory map");
}

}  // namespace hal
