// stack-leap: core 1 recurses through frames larger than any board's stack guard, touching only the
// lowest byte of each (a test image). Without stack probes the first frame to cross the guard would
// step over it and write below, into whatever lies there; with them, a probe lands in the guard, and
// the expected outcome is the same fault the small frames of tests/faults/stack-overflow give.
#include "tests/faults/fault_on_core.hpp"
#include "tests/faults/unbounded_recursion.hpp"

namespace {

constexpr unsigned kFaultingCore = 1;
constexpr size_t kFrameBytes = 48 * 1024;  // 12 guard pages of 4 KiB, 3 guards of 16 KiB

rt::Status run(const firmware::CoreContext& context) {
  return fault_images::fault_on_core(context, kFaultingCore, "stack-leap", [] {
    return rt::internal_error("unbounded recursion returned {}", fault_images::recurse_without_bound<kFrameBytes>(0));
  });
}

}  // namespace

const firmware::App firmware::kApp = {"stack-leap", "test image: core 1's frames larger than its stack guard", run};
