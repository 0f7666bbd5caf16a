// CLINT register layout: MSIP at +4*hart, MTIMECMP at +0x4000+8*hart, MTIME at +0xbff8.
#include "clint.hpp"

#include "mmio.hpp"

namespace hal::drivers {
namespace {

constexpr uintptr_t kSoftwarePending = 0x0000;
constexpr uintptr_t kTimerCompare = 0x4000;
constexpr uintptr_t kTime = 0xbff8;

}  // namespace

void Clint::raise_software_interrupt(uint64_t hart) const {
  asm volatile("fence w, o" ::: "memory");  // data before the doorbell
  mmio::write32(base_ + kSoftwarePending + 4 * hart, 1);
}

bool Clint::take_software_interrupt(uint64_t hart) const {
  const uintptr_t address = base_ + kSoftwarePending + 4 * hart;
  if ((mmio::read32(address) & 1) == 0) return false;
  mmio::write32(address, 0);
  asm volatile("fence i, r" ::: "memory");  // reads after the doorbell see the sender's data
  return true;
}

void Clint::set_timer_compare(uint64_t hart, uint64_t ticks) const {
  mmio::write64(base_ + kTimerCompare + 8 * hart, ticks);
}

uint64_t Clint::time() const { return mmio::read64(base_ + kTime); }

}  // namespace hal::drivers
