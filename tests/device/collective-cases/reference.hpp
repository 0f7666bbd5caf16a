// Sequential reference results, written independently of runtime/collectives: plain loops over
// regenerated inputs, contributions taken in group order.
#pragma once
#include "runtime/collectives/groups.hpp"
#include "runtime/collectives/reduce.hpp"

namespace collectives_test {

// The expected element `index` of a reduction over `members` of their inputs at `input_index`.
void expected_reduction(rt::ReduceOp op, rt::DType type, uint64_t case_seed, const uint32_t* members, unsigned size,
                        size_t input_index, uint8_t* out);

}  // namespace collectives_test
