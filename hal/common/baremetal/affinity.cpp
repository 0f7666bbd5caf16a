// Pinning on the bare-metal boards (hal/affinity.hpp): each core is a CPU already, nothing to do.
#include "hal/affinity.hpp"

namespace hal {

bool pin_core_to_own_cpu(unsigned core, unsigned cores) {
  (void)core;
  (void)cores;
  return false;
}

}  // namespace hal
