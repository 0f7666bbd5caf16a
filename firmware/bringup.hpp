// Bringing all cores up: start each secondary, wait for every core to check in, name the ones that
// do not. Shared bookkeeping lives here so the boot core and secondaries agree on it.
#pragma once
#include "hal/support/status.hpp"

namespace firmware {

// Boot core: starts cores 1..n-1 (except the app's withheld ones) running `core_main`.
rt::Status start_secondary_cores(void (*core_main)(unsigned core));
// Every core: announces that it runs C++ code (prints its banner line).
void check_in(unsigned core);
// Boot core: waits until all cores checked in; the error names each core that never did.
rt::Status wait_for_all_cores(uint64_t timeout_ns);

}  // namespace firmware
