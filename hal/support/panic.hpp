// rt::panic(message): stop the board, loudly, for a programming error that no Status can carry (a
// typed tensor access with the wrong element type, say). The firmware's definition prints
// "*** PANIC on core <n>: <message>" and exits with the failure status (hal/common/fault.cpp); a
// hosted build (the unit tests) defines its own.
#pragma once

namespace rt {

[[noreturn]] void panic(const char* message);

}  // namespace rt
