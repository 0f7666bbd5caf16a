// Free memory on the host board: the RAM file below its link window when tpu shares one
// (link_ram.hpp), else one large private mapping reserved at first use; either way pages are only
// committed when touched, standing in for the RAM a bare-metal board has left after its image.
#include <sys/mman.h>

#include "hal/fault.hpp"
#include "hal/memory_map.hpp"
#include "link_ram.hpp"

namespace hal {
namespace {

FreeMemory reserve_private() {
  static constexpr size_t kReserved = size_t{4} << 30;
  void* mapping = mmap(nullptr, kReserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED) panic("host board: could not reserve memory for the per-core arenas");
  return FreeMemory{static_cast<uint8_t*>(mapping), kReserved};
}

}  // namespace

FreeMemory free_memory() {
  static const FreeMemory memory = [] {
    const host::LinkRam ram = host::link_ram();
    if (ram.base == nullptr) return reserve_private();
    return FreeMemory{ram.base, ram.below_window()};
  }();
  return memory;
}

}  // namespace hal
