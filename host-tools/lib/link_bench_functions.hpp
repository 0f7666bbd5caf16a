// Host functions for measuring the host link (the link-bench app, tests/bench/link_throughput.py):
//   link_source(text "<n>") -> int8[n]   n bytes of the link-bench pattern (host -> board traffic)
//   link_sink(int8[n])      -> float32 n  checks every byte against the pattern (board -> host);
//                                         INVALID_ARGUMENT naming the first wrong byte otherwise
//   echo(tensors...)        -> the same tensors (a round trip with no work on the host)
#pragma once
#include <cstdint>

#include "host_functions.hpp"

namespace tpu {

// The byte at offset i of the pattern (the board computes the same).
inline uint8_t link_bench_pattern(uint64_t i) { return static_cast<uint8_t>((i * 131 + (i >> 12) * 7 + 3) & 0xFF); }

void add_link_bench_functions(HostFunctions& functions);

}  // namespace tpu
