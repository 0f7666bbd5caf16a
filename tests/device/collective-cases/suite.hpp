// The collective-cases library (declared in the app.toml of collectives and soak): per-core buffers, deterministic inputs that every core
// can regenerate for any replica (so each core checks results without receiving anything), and the
// three test suites.
#pragma once
#include "firmware/app.hpp"
#include "runtime/collectives/collectives.hpp"

namespace collectives_test {

inline constexpr size_t kMaxElements = 40000;  // per buffer: larger than a ring and than one segment
inline constexpr size_t kBufferBytes = kMaxElements * 8 + 64;  // room for misaligned starts

struct CoreBuffers {
  alignas(64) uint8_t input[kBufferBytes];
  alignas(64) uint8_t output[kBufferBytes];
};
CoreBuffers& buffers();  // the calling core's
// A per-core, per-case byte offset (0..7) applied to buffer starts: collectives must not assume
// element alignment.
size_t misalignment(uint64_t case_seed, unsigned replica);

// splitmix64: the deterministic source of every case parameter and input element.
uint64_t mix(uint64_t x);

// The raw bytes (dtype_size(type) of them) of element `index` of `replica`'s input in a case.
void input_element(rt::DType type, uint64_t case_seed, unsigned replica, size_t index, uint8_t* out);
void fill_input(rt::DType type, uint64_t case_seed, unsigned replica, size_t count, uint8_t* out);

rt::Status run_tf_examples(rt::Collectives& collectives);
// Cases first .. first + cases - 1 (each case's parameters and inputs follow from its index alone,
// so a failing case index reproduces it; the soak app runs other ranges).
rt::Status run_random_cases(rt::Collectives& collectives, unsigned cases, uint64_t first = 0);
rt::Status run_error_cases(rt::Collectives& collectives);

}  // namespace collectives_test
