// The soak app's pieces (soak.cpp): random replicate calls checked against plain loops.
#pragma once
#include "hal/support/status.hpp"

namespace soak {

// Replicate cases first .. first + cases - 1 over `replicas` cores (call on core 0 inside run_program).
rt::Status run_replicate_cases(unsigned replicas, unsigned cases, uint64_t first);

}  // namespace soak
