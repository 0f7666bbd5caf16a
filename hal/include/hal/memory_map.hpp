// A board's physical memory map as the MMU / PMP setup needs it: which ranges are RAM and which are
// device registers. Anything not listed is unmapped, so stray pointers (null included) fault.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace hal {

enum class MemoryKind { kNormal, kDevice };

struct MemoryRegion {
  const char* name;
  uint64_t base;
  uint64_t size;
  MemoryKind kind;
};

}  // namespace hal

namespace hal {

struct FreeMemory {
  uint8_t* base;
  size_t size;
};

// Memory no part of the image uses (bare metal: RAM after the image; host: a reserved mapping).
// The runtime hands it out as per-core tensor memory.
FreeMemory free_memory();

}  // namespace hal

namespace hal::board {

// The board's regions, terminated by an entry with size 0.
const MemoryRegion* memory_regions();

}  // namespace hal::board
