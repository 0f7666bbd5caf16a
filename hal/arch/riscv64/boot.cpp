// RISC-V per-core bring-up in C++, entered from start.S with stacks and mtvec already set.
#include "../../common/baremetal/tls.hpp"
#include "../../common/boot.hpp"
#include "pmp.hpp"

extern "C" {
const void* riscv_device_tree = nullptr;  // handed over by the boot hart's a1
}

namespace {

void init_this_core(unsigned core) {
  hal::arch::pmp_protect_guards(core);
  hal::init_core_tls(core);
}

}  // namespace

extern "C" [[noreturn]] void riscv_boot_core_main(const void* device_tree) {
  riscv_device_tree = device_tree;
  init_this_core(0);
  hal::boot_core_continue();
}

extern "C" [[noreturn]] void riscv_secondary_core_main(unsigned core) {
  init_this_core(core);
  hal::secondary_core_continue(core);
}
