// The few C++ ABI hooks a freestanding image needs (bare-metal boards only; the host board gets
// them from its C++ runtime). There is no heap: delete is only referenced by virtual destructors.
#include <stddef.h>

#include "hal/fault.hpp"

void operator delete(void*) noexcept { hal::panic("operator delete called: the runtime has no heap"); }
void operator delete(void*, size_t) noexcept { hal::panic("operator delete called: the runtime has no heap"); }

extern "C" {
void* __dso_handle = nullptr;
// Static destructors never run: images end with power_exit().
int __cxa_atexit(void (*)(void*), void*, void*) { return 0; }
void __cxa_pure_virtual() { hal::panic("pure virtual function called"); }
}
