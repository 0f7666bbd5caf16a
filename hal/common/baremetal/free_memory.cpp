// Free memory on bare-metal boards: from the end of the image (page aligned) to the end of the RAM
// region the image lives in, as the board's memory map describes it, less the link window at its top.
#include "hal/fault.hpp"
#include "hal/link_window.hpp"
#include "hal/memory_map.hpp"

extern "C" char __image_end[];

namespace hal {

FreeMemory free_memory() {
  const uintptr_t start = (reinterpret_cast<uintptr_t>(__image_end) + 4095) & ~uintptr_t{4095};
  for (const MemoryRegion* region = board::memory_regions(); region->size != 0; ++region) {
    if (region->kind != MemoryKind::kNormal) continue;
    if (start < region->base || start > region->base + region->size) continue;
    uintptr_t end = region->base + region->size;
    const board::LinkWindow window = board::link_window();
    const uintptr_t window_base = reinterpret_cast<uintptr_t>(window.base);
    if (window.size != 0 && window_base >= start && window_base < end) end = window_base;
    return FreeMemory{reinterpret_cast<uint8_t*>(start), end - start};
  }
  panic("the image does not end inside a RAM region of the board's memory map");
}

}  // namespace hal
