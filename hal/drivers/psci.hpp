// PSCI (Arm Power State Coordination Interface, DEN0022) calls over HVC or SMC.
#pragma once
#include <stdint.h>

namespace hal::drivers {

enum class PsciConduit { kHvc, kSmc };

enum class PsciAffinity { kOn = 0, kOff = 1, kOnPending = 2, kNotPresent = -2, kError = -1 };

class Psci {
 public:
  constexpr explicit Psci(PsciConduit conduit) : conduit_(conduit) {}
  // Returns the PSCI status: 0 success, -2 invalid parameters (no such core), -4 already on.
  int64_t cpu_on(uint64_t target_mpidr, uintptr_t entry, uint64_t context) const;
  PsciAffinity affinity_info(uint64_t target_mpidr) const;
  [[noreturn]] void system_off() const;

  static constexpr int64_t kSuccess = 0;
  static constexpr int64_t kInvalidParameters = -2;
  static constexpr int64_t kAlreadyOn = -4;

 private:
  int64_t call(uint64_t function, uint64_t a1, uint64_t a2, uint64_t a3) const;
  PsciConduit conduit_;
};

}  // namespace hal::drivers
