// Bare-metal boot core hand-over: static constructors (no C library start-up code runs on these
// boards), board init, then the firmware.
#include "../boot.hpp"

#include "hal/board.hpp"
#include "hal/boot.hpp"

extern "C" {
using InitFunction = void (*)();
extern InitFunction __init_array_start[];
extern InitFunction __init_array_end[];
}

namespace hal {

void boot_core_continue() {
  for (InitFunction* f = __init_array_start; f != __init_array_end; ++f) (*f)();
  board::init();
  board::init_core(0);
  firmware_main();
}

}  // namespace hal
