// Free memory on the host board: one large private mapping reserved at first use (pages are only
// committed when touched), standing in for the RAM a bare-metal board has left after its image.
#include <sys/mman.h>

#include "hal/fault.hpp"
#include "hal/memory_map.hpp"

namespace hal {

FreeMemory free_memory() {
  static constexpr size_t kReserved = size_t{4} << 30;
  static void* mapping = mmap(nullptr, kReserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                              -1, 0);
  if (mapping == MAP_FAILED) panic("host board: could not reserve memory for the per-core arenas");
  return FreeMemory{static_cast<uint8_t*>(mapping), kReserved};
}

}  // namespace hal
