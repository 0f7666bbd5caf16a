// Per-core TLS blocks: copy .tdata, zero .tbss, set the arch thread pointer. Layout per the ELF TLS
// "variant I" used by both AArch64 (16-byte TCB before the data) and RISC-V (no TCB).
#include "tls.hpp"

#include <stdint.h>
#include <string.h>

#include "arch_tls.hpp"
#include "hal/core.hpp"
#include "hal/fault.hpp"

extern "C" {
extern char __tdata_source[];
extern char __tdata_size[];
extern char __tbss_size[];
extern char __tls_align[];
}

namespace hal {
namespace {

constexpr uintptr_t kTlsBlockCapacity = 512;  // per core, TCB included
alignas(64) uint8_t tls_blocks[kMaxCores][kTlsBlockCapacity];

}  // namespace

void init_core_tls(unsigned core) {
  const uintptr_t data_size = reinterpret_cast<uintptr_t>(__tdata_size);
  const uintptr_t bss_size = reinterpret_cast<uintptr_t>(__tbss_size);
  const uintptr_t align = reinterpret_cast<uintptr_t>(__tls_align);
  // The TLS data starts at the TCB size rounded up to the TLS alignment (ELF TLS variant I).
  const uintptr_t offset = align == 0 ? kArchTlsTcbSize : (kArchTlsTcbSize + align - 1) / align * align;
  if (offset + data_size + bss_size > kTlsBlockCapacity || align > 64)
    panic("TLS template larger than the per-core TLS block; raise kTlsBlockCapacity");
  uint8_t* block = tls_blocks[core];
  memcpy(block + offset, __tdata_source, data_size);
  memset(block + offset + data_size, 0, bss_size);
  arch_set_thread_pointer(block);
}

}  // namespace hal
