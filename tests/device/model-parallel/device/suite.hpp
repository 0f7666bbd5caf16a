// Shared pieces of the model-parallel app: test tensors, bit-for-bit checks, the device assignments
// each core count allows, and the suites the program (core 0) runs. Every suite picks its
// layout from the core count and says in the log what it runs (or why it skips a part).
#pragma once
#include "firmware/app.hpp"
#include "runtime/tpu/mesh/device_assignment.hpp"
#include "runtime/tpu/replicate/replicate.hpp"
#include "runtime/tpu/spmd/spmd_tensor.hpp"

namespace model_parallel_test {

// One result at a time (replicate runs on core 0 only); too large for a core's stack.
rt::tpu::ReplicateResult& result();

// A contiguous tensor in `arena` with deterministic pseudo-random values: float32 in [-1, 1) with
// 12 significant bits (sums of a few products stay exact only where the test says so), or small
// integers in [-4, 4] (float32 or int8: every product and sum the tests form is exact).
rt::Result<rt::Tensor> random_f32(rt::Arena& arena, rt::Span<const int64_t> dims, uint64_t seed);
rt::Result<rt::Tensor> small_integers(rt::Arena& arena, rt::DType dtype, rt::Span<const int64_t> dims, uint64_t seed);

// The unsplit matmul on the calling core's MXU, into pod memory: the reference a split one must equal.
rt::Result<rt::Tensor> reference_matmul(const rt::Tensor& a, const rt::Tensor& b);
// Every value appended to `outputs` in order, or the first value's error.
rt::Status add_outputs(rt::tpu::ReplicaOutputs& outputs, rt::Span<const rt::Result<rt::Tensor>> values);

// OK when `actual` has `expected`'s dtype and shape and the same bits (both contiguous).
rt::Status expect_same_bits(const rt::Tensor& actual, const rt::Tensor& expected, const char* what);
// OK when float32 `actual` and `expected` (same shape, contiguous) differ nowhere by more than
// `max_ulps` units in the last place of the expected element (NaNs and infinities must match).
rt::Status expect_within_ulps(const rt::Tensor& actual, const rt::Tensor& expected, uint32_t max_ulps, const char* what);
// OK when they differ nowhere by more than `tolerance` * max(1, |expected|).
rt::Status expect_within(const rt::Tensor& actual, const rt::Tensor& expected, float tolerance, const char* what);
// OK when `status` failed with `code` and exactly the text `expected`.
rt::Status expect_error(const rt::Status& status, rt::StatusCode code, rt::StringView expected, const char* what);

// The board's default topology and a device assignment of `num_replicas` replicas shaped
// `computation_shape` on it, or an error when it does not fit.
rt::Result<rt::tpu::DeviceAssignment> assignment(unsigned cores, rt::Span<const int32_t> computation_shape,
                                                 int num_replicas);
// The board's mesh shape ([x, y, z, core]).
rt::tpu::MeshShape mesh_shape(unsigned cores);
// `computation` as one replica spanning every core of the board (SPMD over all its logical devices)
// on `args`; its outputs land in result()[0].
rt::Status replicate_over_whole_board(unsigned cores, const rt::tpu::Computation& computation,
                                      rt::Span<const rt::Tensor> args);

// split_to_logical_devices of a 2-D `t` into a rows x columns grid of the replica's logical devices,
// and the whole tensor gathered back from a split one (or the split's error).
rt::Result<rt::tpu::ShardedTensor> split_2d(const rt::Tensor& t, int64_t rows, int64_t columns);
rt::Result<rt::Tensor> gathered(const rt::Result<rt::tpu::ShardedTensor>& x);

// The largest divisor of n that is at most sqrt(n): the partition grid [1, rows, n / rows, 1].
unsigned grid_rows(unsigned n);

rt::Status run_seed_example(unsigned cores);
rt::Status run_cross_replica_case(unsigned cores);
rt::Status run_spmd_op_cases(unsigned cores);
rt::Status run_spmd_reduce_cases(unsigned cores);
rt::Status run_spmd_partition_cases(unsigned cores);
rt::Status run_uneven_cases(unsigned cores);
rt::Status run_uneven_replicate_case(unsigned cores);
rt::Status run_error_cases(unsigned cores);

}  // namespace model_parallel_test
