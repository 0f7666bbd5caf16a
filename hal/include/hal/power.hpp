// Ending the run: exit status reaches the host (QEMU semihosting, process exit code).
// 0 = pass, 77 = skipped, anything else = failure.
#pragma once

namespace hal {

inline constexpr int kExitPass = 0;
inline constexpr int kExitFail = 1;
inline constexpr int kExitFault = 3;
inline constexpr int kExitTimeout = 4;
inline constexpr int kExitSkip = 77;

[[noreturn]] void power_exit(int status);

}  // namespace hal
