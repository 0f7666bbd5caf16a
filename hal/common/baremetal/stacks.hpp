// Per-core stacks (see stack_layout.h) and queries on them, e.g. "is this fault a stack overflow".
#pragma once
#include <stdint.h>

#include "hal/core.hpp"
#include "stack_layout.h"

namespace hal {

struct alignas(STACK_GUARD_SIZE) CoreStacks {
  uint8_t guard[STACK_GUARD_SIZE];
  uint8_t main[STACK_MAIN_SIZE];
  uint8_t exception[STACK_EXCEPTION_SIZE];
};
static_assert(sizeof(CoreStacks) == CORE_STACKS_SIZE, "stack_layout.h and CoreStacks disagree");

// Defined in the .stacks section (NOLOAD, page aligned) so the linker script can place it.
extern "C" CoreStacks core_stacks[kMaxCores];

// Returns the core whose guard page contains `address`, or -1.
int stack_guard_owner(uint64_t address);

}  // namespace hal
