// The collectives suites' per-core buffers and per-case misalignment (suite.hpp), in the
// collective-cases library, so the soak app (tests/device/soak) runs the same random cases.
#include "hal/core.hpp"
#include "suite.hpp"

namespace collectives_test {
namespace {

CoreBuffers core_buffers[hal::kMaxCores];

}  // namespace

CoreBuffers& buffers() { return core_buffers[hal::core_id()]; }

size_t misalignment(uint64_t case_seed, unsigned replica) { return mix(case_seed + 7 * replica) % 8; }

}  // namespace collectives_test
