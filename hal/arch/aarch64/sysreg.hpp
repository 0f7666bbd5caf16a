// Access to AArch64 system registers by name: read_sysreg(cntvct_el0), write_sysreg(vbar_el1, v).
#pragma once
#include <stdint.h>

#define read_sysreg(reg)                              \
  ({                                                  \
    uint64_t value_;                                  \
    asm volatile("mrs %0, " #reg : "=r"(value_));     \
    value_;                                           \
  })

#define write_sysreg(reg, value) asm volatile("msr " #reg ", %0" ::"r"(static_cast<uint64_t>(value)) : "memory")

namespace hal::arch {

inline void isb() { asm volatile("isb" ::: "memory"); }
inline void dsb_sy() { asm volatile("dsb sy" ::: "memory"); }
inline void dsb_ish() { asm volatile("dsb ish" ::: "memory"); }

}  // namespace hal::arch
