// GICv3 programming (Arm IHI 0069). Affinity routing on, all interrupts Group 1 (non-secure).
#include "gicv3.hpp"

#include "../arch/aarch64/sysreg.hpp"
#include "mmio.hpp"

// CPU interface registers by encoding, so any assembler accepts them.
#define ICC_SRE_EL1 S3_0_C12_C12_5
#define ICC_PMR_EL1 S3_0_C4_C6_0
#define ICC_BPR1_EL1 S3_0_C12_C12_3
#define ICC_IGRPEN1_EL1 S3_0_C12_C12_7
#define ICC_SGI1R_EL1 S3_0_C12_C11_5
#define ICC_IAR1_EL1 S3_0_C12_C12_0
#define ICC_EOIR1_EL1 S3_0_C12_C12_1
// One level of macro indirection so the ICC_* names expand before read_sysreg stringifies them.
#define SYSREG_READ(name) read_sysreg(name)
#define SYSREG_WRITE(name, value) write_sysreg(name, value)

namespace hal::drivers {
namespace {

constexpr uintptr_t kDistributorControl = 0x0000;
constexpr uint32_t kControlRegisterWritePending = 1u << 31;
constexpr uint32_t kControlAffinityRouting = 1u << 4;
constexpr uint32_t kControlEnableGroup1 = 1u << 1;
constexpr uint32_t kControlEnableGroup0 = 1u << 0;

constexpr uintptr_t kRedistributorWaker = 0x0014;
constexpr uint32_t kWakerProcessorSleep = 1u << 1;
constexpr uint32_t kWakerChildrenAsleep = 1u << 2;
constexpr uintptr_t kSgiFrame = 0x10000;
constexpr uintptr_t kGroup0 = kSgiFrame + 0x0080;
constexpr uintptr_t kSetEnable0 = kSgiFrame + 0x0100;
constexpr uintptr_t kPriority0 = kSgiFrame + 0x0400;

constexpr unsigned kSpinLimit = 1000000;

void wait_while_set(uintptr_t address, uint32_t bits) {
  for (unsigned i = 0; i < kSpinLimit && (mmio::read32(address) & bits) != 0; ++i) {
  }
}

}  // namespace

void GicV3::init_distributor() const {
  mmio::write32(distributor_ + kDistributorControl, kControlAffinityRouting);
  wait_while_set(distributor_ + kDistributorControl, kControlRegisterWritePending);
  mmio::write32(distributor_ + kDistributorControl,
                kControlAffinityRouting | kControlEnableGroup1 | kControlEnableGroup0);
  wait_while_set(distributor_ + kDistributorControl, kControlRegisterWritePending);
}

void GicV3::init_core(unsigned index, uint32_t private_interrupt_mask) const {
  const uintptr_t rd = redistributors_ + index * stride_;
  mmio::write32(rd + kRedistributorWaker, mmio::read32(rd + kRedistributorWaker) & ~kWakerProcessorSleep);
  wait_while_set(rd + kRedistributorWaker, kWakerChildrenAsleep);
  mmio::write32(rd + kGroup0, 0xffffffffu);  // all private interrupts in Group 1
  for (unsigned id = 0; id < 32; id += 4) mmio::write32(rd + kPriority0 + id, 0x80808080u);
  mmio::write32(rd + kSetEnable0, private_interrupt_mask);

  SYSREG_WRITE(ICC_SRE_EL1, SYSREG_READ(ICC_SRE_EL1) | 1);  // system register interface
  arch::isb();
  SYSREG_WRITE(ICC_PMR_EL1, 0xff);
  SYSREG_WRITE(ICC_BPR1_EL1, 0);
  SYSREG_WRITE(ICC_IGRPEN1_EL1, 1);
  arch::isb();
}

void GicV3::send_sgi(unsigned sgi, uint64_t mpidr) const {
  const uint64_t aff0 = mpidr & 0xff;
  const uint64_t aff1 = (mpidr >> 8) & 0xff;
  const uint64_t aff2 = (mpidr >> 16) & 0xff;
  const uint64_t aff3 = (mpidr >> 32) & 0xff;
  const uint64_t value = (aff3 << 48) | (aff2 << 32) | ((aff0 >> 4) << 44) | (uint64_t{sgi} << 24) |
                         (aff1 << 16) | (1ull << (aff0 & 0xf));
  arch::dsb_ish();  // data the target will read must be visible before it wakes
  SYSREG_WRITE(ICC_SGI1R_EL1, value);
  arch::isb();
}

uint32_t GicV3::acknowledge() const {
  return static_cast<uint32_t>(SYSREG_READ(ICC_IAR1_EL1) & 0xffffff);
}

void GicV3::end_of_interrupt(uint32_t id) const {
  SYSREG_WRITE(ICC_EOIR1_EL1, id);
  arch::isb();
}

}  // namespace hal::drivers
