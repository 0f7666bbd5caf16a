// AArch64 TLS ABI: TPIDR_EL0 points at a 16-byte TCB, the TLS data follows it.
#pragma once
#include <stdint.h>

namespace hal {

inline constexpr uintptr_t kArchTlsTcbSize = 16;

inline void arch_set_thread_pointer(void* block) { asm volatile("msr tpidr_el0, %0" ::"r"(block)); }

}  // namespace hal
