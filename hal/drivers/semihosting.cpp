// Semihosting operations (Arm "Semihosting for AArch32 and AArch64", used unchanged by RISC-V).
#include "semihosting.hpp"

namespace hal::drivers {
namespace {

constexpr uintptr_t kSysWrite = 0x05;
constexpr uintptr_t kSysExit = 0x18;
constexpr uintptr_t kApplicationExit = 0x20026;  // ADP_Stopped_ApplicationExit
constexpr uintptr_t kStdoutHandle = 1;

}  // namespace

void semihosting_exit(int status) {
  // 64-bit form: the parameter is a block {reason, exit status}.
  volatile uintptr_t block[2] = {kApplicationExit, static_cast<uintptr_t>(static_cast<unsigned>(status))};
  semihosting_trap(kSysExit, reinterpret_cast<uintptr_t>(block));
  for (;;) {
  }
}

void semihosting_write(const char* text, uintptr_t length) {
  volatile uintptr_t block[3] = {kStdoutHandle, reinterpret_cast<uintptr_t>(text), length};
  semihosting_trap(kSysWrite, reinterpret_cast<uintptr_t>(block));
}

}  // namespace hal::drivers
