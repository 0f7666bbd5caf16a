// Arm/RISC-V semihosting (the host debugger or QEMU services the call): exit with a status and
// write text. Only meaningful under QEMU with -semihosting-config enable=on or a debugger attached.
#pragma once
#include <stdint.h>

// Provided by hal/arch/<arch>/semihosting_trap.S: executes the arch's semihosting instruction.
extern "C" uintptr_t semihosting_trap(uintptr_t operation, uintptr_t parameter);

namespace hal::drivers {

[[noreturn]] void semihosting_exit(int status);
void semihosting_write(const char* text, uintptr_t length);

}  // namespace hal::drivers
