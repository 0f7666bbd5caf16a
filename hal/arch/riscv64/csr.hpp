// Access to RISC-V control and status registers by name: read_csr(mhartid), write_csr(mie, v).
#pragma once
#include <stdint.h>

#define read_csr(reg)                               \
  ({                                                \
    uint64_t value_;                                \
    asm volatile("csrr %0, " #reg : "=r"(value_));  \
    value_;                                         \
  })
#define write_csr(reg, value) asm volatile("csrw " #reg ", %0" ::"r"(static_cast<uint64_t>(value)) : "memory")
#define set_csr(reg, bits) asm volatile("csrs " #reg ", %0" ::"r"(static_cast<uint64_t>(bits)) : "memory")
#define clear_csr(reg, bits) asm volatile("csrc " #reg ", %0" ::"r"(static_cast<uint64_t>(bits)) : "memory")

namespace hal::arch {

inline constexpr uint64_t kMieSoftware = 1u << 3;  // MSIE
inline constexpr uint64_t kMieTimer = 1u << 7;     // MTIE

inline void wait_for_interrupt() { asm volatile("wfi" ::: "memory"); }

}  // namespace hal::arch
