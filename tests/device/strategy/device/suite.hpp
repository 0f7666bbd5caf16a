// Shared pieces of the strategy test app: tensor builders and checks, and the suites the
// program (core 0) runs. Every suite derives its expected numbers from the replica count N (= the
// core count), written out as the hand formulas they come from, so the app passes on 1..16 cores.
#pragma once
#include "firmware/app.hpp"
#include "runtime/ops/arena_ops.hpp"
#include "runtime/tpu/strategy/strategy.hpp"

namespace strategy_test {

using rt::Result;
using rt::Status;
using rt::Tensor;
using rt::add;  // the returning op (runtime/ops/arena_ops.hpp)
using rt::tpu::DistributedValue;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaOutputs;
using rt::tpu::StrategyReplicaContext;
using rt::tpu::TPUStrategy;

// run()'s outputs (too large for a core's stack; one run at a time on core 0).
rt::tpu::RunOutputs& outputs();

Result<Tensor> f32_tensor(rt::Arena& arena, rt::Span<const int64_t> dims, rt::Span<const float> values);
inline Result<Tensor> f32_tensor(rt::Arena& arena, rt::Span<const int64_t> dims, std::initializer_list<float> values) {
  return f32_tensor(arena, dims, rt::Span<const float>(values.begin(), values.size()));
}
Result<Tensor> f32_scalar(rt::Arena& arena, float value);
// Element `index` (row-major) of a float32 tensor of any strides.
float f32_at(const Tensor& tensor, size_t index);
// reduce_sum over dimension 0 in `arena`.
Result<Tensor> sum_rows(rt::Arena& arena, const Tensor& x);

// OK when `status` failed with `code` and exactly the text `expected`.
Status expect_error(const Status& status, rt::StatusCode code, rt::StringView expected, const char* what);
// OK when the float32 tensor holds exactly `expected` (row-major).
Status expect_f32(const Tensor& tensor, rt::Span<const float> expected, const char* what);
Status expect_f32(const Tensor& tensor, std::initializer_list<float> expected, const char* what);
// A run output with `replicas` components: PerReplica for 2+, the plain value for one.
Status expect_regrouped(const DistributedValue& value, unsigned replicas, const char* what);

Status run_construction_cases(unsigned cores);
Status run_run_cases(unsigned cores);
Status run_merge_cases(unsigned cores);
Status run_reduce_cases(unsigned cores);
Status run_variable_cases(unsigned cores);
Status run_dataset_cases(unsigned cores);
Status run_steps_cases(unsigned cores);
Status run_model_parallel_cases(unsigned cores);
Status run_host_cases(unsigned cores);
Status run_scope_cases(unsigned cores);
Status run_gather_cases(unsigned cores);
Status run_structure_cases(unsigned cores);
Status run_contrib_cases(unsigned cores);
Status run_names_cases(unsigned cores);

}  // namespace strategy_test
