// RISC-V TLS ABI: tp points directly at the TLS data (no TCB in front).
#pragma once
#include <stdint.h>

namespace hal {

inline constexpr uintptr_t kArchTlsTcbSize = 0;

inline void arch_set_thread_pointer(void* block) { asm volatile("mv tp, %0" ::"r"(block)); }

}  // namespace hal
