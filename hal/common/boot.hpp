// Architecture-independent boot sequence, called by hal/arch start code on each core.
#pragma once

namespace hal {

// Boot core (bare-metal boards): runs static constructors, board init, then firmware_main().
[[noreturn]] void boot_core_continue();
// Secondary core: per-core board init, then the CoreMain it was started with. Never returns.
[[noreturn]] void secondary_core_continue(unsigned core);

}  // namespace hal
