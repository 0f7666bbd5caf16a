// SiFive test finisher (QEMU "sifive_test"): one register that ends the simulation with a status.
#pragma once
#include <stdint.h>

namespace hal::drivers {

class SifiveTest {
 public:
  constexpr explicit SifiveTest(uintptr_t base) : base_(base) {}
  [[noreturn]] void exit(int status) const;

 private:
  uintptr_t base_;
};

}  // namespace hal::drivers
