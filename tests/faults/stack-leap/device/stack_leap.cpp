// stack-leap: core 1 recurses through frames larger than any board's stack guard, touching only the
// lowest byte of each (a test image). Without stack probes the first frame to cross the guard would
// step over it and write below, into whatever lies there; with them, a probe lands in the guard, and
// the expected outcome is the same fault the small frames of tests/faults/stack-overflow give.
#include "tests/faults/fault_on_core.hpp"

namespace {

constexpr unsigned kFaultingCore = 1;
constexpr size_t kFrameBytes = 48 * 1024;  // 12 guard pages of 4 KiB, 3 guards of 16 KiB

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
__attribute__((noinline)) uint64_t leap(uint64_t depth) {
  volatile uint8_t frame[kFrameBytes];
  frame[0] = static_cast<uint8_t>(depth);  // the frame's lowest address: below the guard once it is crossed
  return leap(depth + 1) + frame[0];
}
#pragma GCC diagnostic pop

rt::Status run(const firmware::CoreContext& context) {
  return fault_images::fault_on_core(context, kFaultingCore, "stack-leap", [] {
    return rt::internal_error("unbounded recursion returned {}", leap(0));
  });
}

}  // namespace

const firmware::App firmware::kApp = {"stack-leap", "test image: core 1's frames larger than its stack guard", run};
