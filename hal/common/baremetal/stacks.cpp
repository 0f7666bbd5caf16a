// Storage for per-core stacks and the guard-page lookup used by fault reports.
#include "stacks.hpp"

namespace hal {

extern "C" __attribute__((section(".stacks"))) CoreStacks core_stacks[kMaxCores];
CoreStacks core_stacks[kMaxCores];

int stack_guard_owner(uint64_t address) {
  for (unsigned core = 0; core < kMaxCores; ++core) {
    uint64_t guard = reinterpret_cast<uintptr_t>(core_stacks[core].guard);
    if (address >= guard && address < guard + STACK_GUARD_SIZE) return static_cast<int>(core);
  }
  return -1;
}

}  // namespace hal
