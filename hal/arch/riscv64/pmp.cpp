// PMP setup: entry 0 = this hart's stack guard (STACK_GUARD_SIZE, aligned to it), entry 1 = the
// 4 KiB null page, both NAPOT regions with the lock bit (which makes them apply to M-mode) and no
// permissions. Unmatched addresses stay fully accessible to M-mode. Each hart programs its own PMP,
// so one entry per guard suffices.
#include "pmp.hpp"

#include <stdint.h>

#include "csr.hpp"
#include "stacks.hpp"

namespace hal::arch {
namespace {

constexpr uint64_t kLocked = 0x80;
constexpr uint64_t kNapot = 0x18;
constexpr uint64_t kPageSize = 4096;

constexpr uint64_t napot_address(uint64_t base, uint64_t size) { return (base >> 2) | ((size >> 3) - 1); }

// A NAPOT region is a power of two at least 8 bytes long, aligned to its size.
static_assert(STACK_GUARD_SIZE >= 8 && (STACK_GUARD_SIZE & (STACK_GUARD_SIZE - 1)) == 0, "a guard is one NAPOT region");
static_assert(alignof(hal::CoreStacks) >= STACK_GUARD_SIZE && CORE_STACKS_SIZE % STACK_GUARD_SIZE == 0,
              "every core's guard is aligned to its size");

}  // namespace

void pmp_protect_guards(unsigned core) {
  const uint64_t guard = reinterpret_cast<uintptr_t>(core_stacks[core].guard);
  write_csr(pmpaddr0, napot_address(guard, STACK_GUARD_SIZE));
  write_csr(pmpaddr1, napot_address(0, kPageSize));
  write_csr(pmpcfg0, (kLocked | kNapot) | ((kLocked | kNapot) << 8));
}

}  // namespace hal::arch
