// RISC-V CLINT (SiFive core-local interruptor): per-hart software interrupt (MSIP) and timer
// compare registers, plus the shared mtime counter.
#pragma once
#include <stdint.h>

namespace hal::drivers {

class Clint {
 public:
  constexpr explicit Clint(uintptr_t base) : base_(base) {}
  void raise_software_interrupt(uint64_t hart) const;
  // Clears the hart's MSIP; returns whether it was set.
  bool take_software_interrupt(uint64_t hart) const;
  void set_timer_compare(uint64_t hart, uint64_t ticks) const;
  uint64_t time() const;

 private:
  uintptr_t base_;
};

}  // namespace hal::drivers
