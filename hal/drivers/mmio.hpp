// Volatile register access for drivers. Every driver takes its base address from the board.
#pragma once
#include <stdint.h>

namespace hal::mmio {

inline uint32_t read32(uintptr_t address) { return *reinterpret_cast<volatile uint32_t*>(address); }
inline void write32(uintptr_t address, uint32_t value) { *reinterpret_cast<volatile uint32_t*>(address) = value; }
inline uint8_t read8(uintptr_t address) { return *reinterpret_cast<volatile uint8_t*>(address); }
inline void write8(uintptr_t address, uint8_t value) { *reinterpret_cast<volatile uint8_t*>(address) = value; }
inline uint64_t read64(uintptr_t address) { return *reinterpret_cast<volatile uint64_t*>(address); }
inline void write64(uintptr_t address, uint64_t value) { *reinterpret_cast<volatile uint64_t*>(address) = value; }

}  // namespace hal::mmio
