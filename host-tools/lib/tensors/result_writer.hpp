// A host call's results written where they go rather than handed over as bytes: `write(i, d)` fills
// result i into `d` (exactly its size), which is the board's own buffer where the link maps board
// memory (shared memory: the result is computed straight into place, never copied), else a buffer
// tpu then sends in frames. The pod's collectives answer this way (host-tools/lib/pod).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace tpu {

using ResultWriter = std::function<void(size_t result, std::span<uint8_t> destination)>;

}  // namespace tpu
