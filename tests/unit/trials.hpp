// How many trials a randomized unit test runs. The plain build runs the full count; the build under
// AddressSanitizer (make test runs the link, ring and .npy tests there too, looking for memory
// errors) runs a quarter of them with the same seeds: the same code paths, each about four times
// slower under ASan, so the plain run's coverage stays and the sanitized one does not double it.
#pragma once
#include <cstdint>

namespace unit_tests {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

// `full` trials in the plain build, full / 4 under AddressSanitizer.
constexpr uint64_t trials(uint64_t full) { return kUnderAddressSanitizer ? full / 4 : full; }

}  // namespace unit_tests
