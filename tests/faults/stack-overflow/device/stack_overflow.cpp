// stack-overflow: core 1 recurses without bound (a test image). The expected outcome is a fault in
// core 1's stack guard page, reported as a stack overflow from the exception stack.
#include "tests/faults/fault_on_core.hpp"

namespace {

constexpr unsigned kFaultingCore = 1;

// Each frame keeps a buffer alive across the call so the compiler cannot turn this into a loop.
// The recursion is unbounded on purpose.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
__attribute__((noinline)) uint64_t recurse(uint64_t depth) {
  volatile uint8_t frame[256];
  frame[depth % sizeof(frame)] = static_cast<uint8_t>(depth);
  return recurse(depth + 1) + frame[(depth + 1) % sizeof(frame)];
}
#pragma GCC diagnostic pop

rt::Status run(const firmware::CoreContext& context) {
  return fault_images::fault_on_core(context, kFaultingCore, "stack-overflow", [] {
    return rt::internal_error("unbounded recursion returned {}", recurse(0));
  });
}

}  // namespace

const firmware::App firmware::kApp = {"stack-overflow", "test image: unbounded recursion on core 1", run};
