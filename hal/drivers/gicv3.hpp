// Arm GICv3 interrupt controller: distributor, per-core redistributors and the system-register CPU
// interface. Used here for doorbells (SGIs) and timer wake-ups, with interrupts masked at the core:
// a pending interrupt wakes WFI and is then acknowledged by polling, no handler runs.
#pragma once
#include <stdint.h>

namespace hal::drivers {

class GicV3 {
 public:
  constexpr GicV3(uintptr_t distributor, uintptr_t redistributors, uintptr_t redistributor_stride)
      : distributor_(distributor), redistributors_(redistributors), stride_(redistributor_stride) {}

  void init_distributor() const;
  // Wakes core `index`'s redistributor and enables the given private interrupts (SGIs/PPIs < 32).
  void init_core(unsigned index, uint32_t private_interrupt_mask) const;
  void send_sgi(unsigned sgi, uint64_t target_mpidr) const;
  // Acknowledges the highest-priority pending interrupt: its id, or kSpurious if none.
  uint32_t acknowledge() const;
  void end_of_interrupt(uint32_t id) const;

  static constexpr uint32_t kSpurious = 1023;

 private:
  uintptr_t distributor_;
  uintptr_t redistributors_;
  uintptr_t stride_;
};

}  // namespace hal::drivers
