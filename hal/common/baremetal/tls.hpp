// Per-core thread-local storage for bare-metal boards. picolibc keeps errno (and a few others) in
// TLS, so each core gets its own copy of the .tdata/.tbss template before it calls into libc.
#pragma once

namespace hal {

// Builds the calling core's TLS block and points the thread register (TPIDR_EL0 / tp) at it.
void init_core_tls(unsigned core);

}  // namespace hal
