// Pinning on the bare-metal boards (hal/affinity.hpp): each core is a CPU already, nothing to do.
#include "hal/affinity.hpp"

namespace hal {

bool pin_core_to_cpu(unsigned core, unsigned first_cpu, unsigned cores) {
  (void)core, (void)first_cpu, (void)cores;
  return false;
}

bool core_has_own_cpu() { return false; }  // under QEMU, vCPUs are threads that may share a CPU

void bind_core_as_requested(unsigned core, unsigned cores) { (void)core, (void)cores; }

}  // namespace hal
