// stack-overflow: core 1 recurses without bound through small frames (a test image). The expected
// outcome is a fault in core 1's stack guard page, reported as a stack overflow from the exception
// stack.
#include "tests/faults/fault_on_core.hpp"
#include "tests/faults/unbounded_recursion.hpp"

namespace {

constexpr unsigned kFaultingCore = 1;
constexpr size_t kFrameBytes = 256;  // well inside any guard: the guard alone catches it

rt::Status run(const firmware::CoreContext& context) {
  return fault_images::fault_on_core(context, kFaultingCore, "stack-overflow", [] {
    return rt::internal_error("unbounded recursion returned {}", fault_images::recurse_without_bound<kFrameBytes>(0));
  });
}

}  // namespace

const firmware::App firmware::kApp = {"stack-overflow", "test image: unbounded recursion on core 1", run};
