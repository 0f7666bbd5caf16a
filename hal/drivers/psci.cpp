// PSCI function calls (SMC Calling Convention: function id in x0, arguments x1..x3, result x0).
#include "psci.hpp"

namespace hal::drivers {
namespace {

constexpr uint64_t kCpuOn64 = 0xC4000003;
constexpr uint64_t kAffinityInfo64 = 0xC4000004;
constexpr uint64_t kSystemOff = 0x84000008;

}  // namespace

int64_t Psci::call(uint64_t function, uint64_t a1, uint64_t a2, uint64_t a3) const {
  register uint64_t x0 asm("x0") = function;
  register uint64_t x1 asm("x1") = a1;
  register uint64_t x2 asm("x2") = a2;
  register uint64_t x3 asm("x3") = a3;
  if (conduit_ == PsciConduit::kHvc)
    asm volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)::"memory");
  else
    asm volatile("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)::"memory");
  return static_cast<int64_t>(x0);
}

int64_t Psci::cpu_on(uint64_t target_mpidr, uintptr_t entry, uint64_t context) const {
  return call(kCpuOn64, target_mpidr, entry, context);
}

PsciAffinity Psci::affinity_info(uint64_t target_mpidr) const {
  const int64_t result = call(kAffinityInfo64, target_mpidr, 0, 0);
  switch (result) {
    case 0: return PsciAffinity::kOn;
    case 1: return PsciAffinity::kOff;
    case 2: return PsciAffinity::kOnPending;
    case -2: return PsciAffinity::kNotPresent;
    default: return PsciAffinity::kError;
  }
}

void Psci::system_off() const {
  call(kSystemOff, 0, 0, 0);
  for (;;) asm volatile("wfi");
}

}  // namespace hal::drivers
