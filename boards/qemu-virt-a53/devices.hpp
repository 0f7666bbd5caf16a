// qemu-virt-a53 device instances: one driver object per IP block, at the board's addresses.
#pragma once
#include "../../hal/drivers/gicv3.hpp"
#include "../../hal/drivers/pl011.hpp"
#include "../../hal/drivers/psci.hpp"
#include "memory_map.hpp"

namespace board {

inline constexpr hal::drivers::Pl011 uart(kUart);
inline constexpr hal::drivers::GicV3 gic(kGicDistributor, kGicRedistributors, kGicRedistributorStride);
inline constexpr hal::drivers::Psci psci(hal::drivers::PsciConduit::kHvc);

}  // namespace board
