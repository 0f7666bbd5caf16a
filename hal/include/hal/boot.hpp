// Starting secondary cores. The boot core (0) runs firmware_main(); every other core runs the
// CoreMain it is started with, on its own stack, with the MMU/TLS/interrupt setup already done.
#pragma once

namespace hal {

using CoreMain = void (*)(unsigned core);

enum class StartError { kNone, kNoSuchCore, kAlreadyStarted, kRefused };

// Asks the board to start `core` running `main`. Returns at once; the core checks in by itself.
StartError start_core(unsigned core, CoreMain main);
const char* start_error_name(StartError error);

}  // namespace hal

// Defined by firmware/: the boot core's entry once hardware and C++ runtime are initialised.
extern "C" [[noreturn]] void firmware_main();
