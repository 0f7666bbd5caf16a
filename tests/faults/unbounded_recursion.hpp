// Unbounded recursion for the stack fault images (tests/faults/stack-*): every call keeps a frame of
// kFrameBytes alive across the next call (so the compiler cannot turn it into a loop) and touches
// only the frame's lowest byte, the first a frame crossing the stack guard puts below it.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace fault_images {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
template <size_t kFrameBytes>
__attribute__((noinline)) uint64_t recurse_without_bound(uint64_t depth) {
  volatile uint8_t frame[kFrameBytes];
  frame[0] = static_cast<uint8_t>(depth);
  return recurse_without_bound<kFrameBytes>(depth + 1) + frame[0];
}
#pragma GCC diagnostic pop

}  // namespace fault_images
