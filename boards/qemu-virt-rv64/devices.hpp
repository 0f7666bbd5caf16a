// qemu-virt-rv64 device instances: one driver object per IP block, at the board's addresses.
#pragma once
#include "../../hal/drivers/clint.hpp"
#include "../../hal/drivers/ns16550.hpp"
#include "../../hal/drivers/sifive_test.hpp"
#include "memory_map.hpp"

namespace board {

inline constexpr hal::drivers::Ns16550 uart(kUart);
inline constexpr hal::drivers::Clint clint(kClint);
inline constexpr hal::drivers::SifiveTest test_finisher(kTestFinisher);

}  // namespace board
