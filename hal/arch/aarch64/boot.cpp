// AArch64 per-core bring-up in C++, entered from start.S with stacks and vectors already set.
#include "../../common/boot.hpp"
#include "../../common/baremetal/tls.hpp"
#include "mmu.hpp"
#include "sysreg.hpp"

namespace hal {
void arch_enable_counters();
}

namespace {

// Timer event stream: a WFE wake-up every 2^(10+1) counter ticks (about 33 us at 62.5 MHz), so a
// WFE spin re-checks its deadline even when no core ever sends an event.
void enable_wfe_event_stream() {
  write_sysreg(cntkctl_el1, (read_sysreg(cntkctl_el1) & ~0xf0ull) | (10ull << 4) | (1ull << 2));
  hal::arch::isb();
}

void init_this_core(unsigned core) {
  hal::arch::mmu_enable();
  enable_wfe_event_stream();
  hal::init_core_tls(core);
  hal::arch_enable_counters();
}

}  // namespace

extern "C" [[noreturn]] void aarch64_boot_core_main() {
  hal::arch::mmu_build_tables();
  init_this_core(0);
  hal::boot_core_continue();
}

extern "C" [[noreturn]] void aarch64_secondary_core_main(unsigned core) {
  init_this_core(core);
  hal::secondary_core_continue(core);
}
