// Shared pieces of the replicate test app: the result storage, tensor builders and checks, and the
// suites the program (core 0) runs. Every suite derives its replica counts from the core count,
// so the app passes on 1..16 cores.
#pragma once
#include "firmware/app.hpp"
#include "runtime/tpu/replicate/replica_context.hpp"
#include "runtime/tpu/replicate/replicate.hpp"

namespace replicate_test {

// One result at a time (replicate runs on core 0 only); too large for a core's stack.
rt::tpu::ReplicateResult& result();

// A contiguous tensor in `arena` holding `values` (row-major, as many as the shape has elements).
rt::Result<rt::Tensor> f32_tensor(rt::Arena& arena, rt::Span<const int64_t> dims, rt::Span<const float> values);
rt::Result<rt::Tensor> i32_tensor(rt::Arena& arena, rt::Span<const int64_t> dims, rt::Span<const int32_t> values);
inline rt::Result<rt::Tensor> f32_tensor(rt::Arena& arena, rt::Span<const int64_t> dims,
                                         std::initializer_list<float> values) {
  return f32_tensor(arena, dims, rt::Span<const float>(values.begin(), values.size()));
}
inline rt::Result<rt::Tensor> i32_tensor(rt::Arena& arena, rt::Span<const int64_t> dims,
                                         std::initializer_list<int32_t> values) {
  return i32_tensor(arena, dims, rt::Span<const int32_t>(values.begin(), values.size()));
}
float f32_at(const rt::Tensor& tensor, size_t index);
int32_t i32_at(const rt::Tensor& tensor, size_t index);

// OK when `status` failed with `code` and exactly the text `expected`.
rt::Status expect_error(const rt::Status& status, rt::StatusCode code, rt::StringView expected, const char* what);
// OK when every replica returned `count` outputs.
rt::Status expect_output_counts(const rt::tpu::ReplicateResult& result, unsigned replicas, unsigned count,
                                const char* what);

rt::Status run_seed_examples(unsigned cores);
rt::Status run_collective_cases(unsigned cores);
rt::Status run_dynamic_shape_cases(unsigned cores);
rt::Status run_convention_cases(unsigned cores);
rt::Status run_error_cases(unsigned cores);
rt::Status run_outside_compilation_cases(unsigned cores);
rt::Status run_structure_cases(unsigned cores);
rt::Status run_timeout_case(unsigned cores);
rt::Status run_failing_peer_case(unsigned cores);  // last: may leave the mailboxes out of step

}  // namespace replicate_test
