// The error texts of TF's logical-device functions (runtime/tpu/TF_BEHAVIOUR.md section 6), word for
// word, raised inside a replica spanning the whole board (N logical devices) and returned by replicate:
//   experimental_split_to_logical_devices's three checks, in TF's order (each case also breaks the
//   later checks, so the order is what picks the text); experimental_assign_to_logical_device's
//   logical_core_id check (N and -1); the runtime's own refusal of a split convolution whose output does not split
//   evenly (SAME, stride 2, over N one-row tiles: XLA would pad the uneven tiles).
// Outside a replicated computation there is one logical device, and the product check says so.
#include "runtime/log/log.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "runtime/tpu/spmd/spmd_conv2d.hpp"
#include "suite.hpp"

namespace model_parallel_test {
namespace {

using rt::Result;
using rt::Status;
using rt::StatusCode;
using rt::Tensor;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ReplicaOutputs;

struct ErrorCase {
  const char* what;
  int64_t tensor_dims[4];
  unsigned rank;
  int64_t partition[4];  // split cases
  unsigned partition_rank;
  enum Kind { kSplit, kAssign, kUnevenConv } kind;
  int64_t assign_id;
};

Status attempt(const ErrorCase& c, const Tensor& t) {
  if (c.kind == ErrorCase::kAssign) return rt::tpu::assign_to_logical_device(t, c.assign_id).status();
  Result<rt::tpu::ShardedTensor> x =
      rt::tpu::split_to_logical_devices(t, rt::Span<const int64_t>(c.partition, c.partition_rank));
  if (!x || c.kind == ErrorCase::kSplit) return x.status();
  const int64_t filter_dims[] = {3, 3, t.shape.dims[3], 1};
  Result<Tensor> filter = random_f32(rt::tpu::logical_devices().arena(), filter_dims, 9);
  if (!filter) return filter.status();
  rt::Conv2dOptions same;
  same.padding = rt::ConvPadding::kSame;
  same.strides[0] = same.strides[1] = 2;
  return rt::tpu::spmd::conv2d(*x, rt::tpu::replicate_to_logical_devices(*filter), same).status();
}

Status run_case(const ErrorCase& c, const rt::tpu::DeviceAssignment& whole_board, StatusCode code,
                rt::StringView expected) {
  rt::tpu::PodMemoryScope memory(hal::core_count());
  Result<Tensor> t = random_f32(rt::hbm(), rt::Span<const int64_t>(c.tensor_dims, c.rank), 1);
  if (!t) return t.status();
  // args: the case's tensor.
  const rt::tpu::Computation computation{
      "raise", [&c](ReplicaContext&, ReplicaArgs args, ReplicaOutputs&) { return attempt(c, args[0]); }, {1}};
  rt::tpu::ReplicateOptions options;
  options.device_assignment = &whole_board;
  const ReplicaArgs inputs[] = {ReplicaArgs(&*t, 1)};
  return expect_error(rt::tpu::replicate(computation, inputs, options, result()), code, expected, c.what);
}

Status outside_replicate(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  const int64_t dims[] = {2, 4}, partition[] = {2, 1};
  Result<Tensor> t = random_f32(rt::hbm(), dims, 2);
  if (!t) return t.status();
  return expect_error(rt::tpu::split_to_logical_devices(*t, partition).status(), StatusCode::kInvalidArgument,
                      "The product of `partition_dimensions` should be the same as the number of logical devices "
                      "(=1). Received `partition_dimensions`=[2, 1],and their product is 2.",
                      "split outside replicate (one logical device)");
}

}  // namespace

Status run_error_cases(unsigned cores) {
  Result<rt::tpu::DeviceAssignment> whole_board = assignment(cores, mesh_shape(cores).span(), 1);
  if (!whole_board) return whole_board.status();
  const int64_t n = cores;
  rt::FixedString<256> text;
  const ErrorCase rank_case{"rank check first", {8, 4}, 2, {1, 2, 4}, 3, ErrorCase::kSplit, 0};
  RT_RETURN_IF_ERROR(run_case(rank_case, *whole_board, StatusCode::kInvalidArgument,
                              "Length of `partition_dimensions` must equal to the rank of `tensor.shape` (2). Received "
                              "len(partition_dimensions)=3."));
  const ErrorCase divisible_case{"divisibility before the product", {6, 15}, 2, {4, 3}, 2, ErrorCase::kSplit, 0};
  RT_RETURN_IF_ERROR(run_case(divisible_case, *whole_board, StatusCode::kInvalidArgument,
                              "Tensor shape at `partition_dimensions[0]` must be divisible by corresponding value "
                              "specified by `partition_dimensions` (4). Received: 6."));
  const ErrorCase second_dim_case{"divisibility of dimension 1", {8, 15}, 2, {2, 4}, 2, ErrorCase::kSplit, 0};
  RT_RETURN_IF_ERROR(run_case(second_dim_case, *whole_board, StatusCode::kInvalidArgument,
                              "Tensor shape at `partition_dimensions[1]` must be divisible by corresponding value "
                              "specified by `partition_dimensions` (4). Received: 15."));
  const ErrorCase product_case{"product", {2 * n, 4}, 2, {n == 1 ? 2 : 1, 1}, 2, ErrorCase::kSplit, 0};
  format_to(text, "The product of `partition_dimensions` should be the same as the number of logical devices (={}). "
            "Received `partition_dimensions`=[{}, 1],and their product is {}.", n, n == 1 ? 2 : 1, n == 1 ? 2 : 1);
  RT_RETURN_IF_ERROR(run_case(product_case, *whole_board, StatusCode::kInvalidArgument, text.view()));
  for (const int64_t id : {n, int64_t{-1}}) {
    const ErrorCase assign_case{"assign_to_logical_device id", {2, 2}, 2, {}, 0, ErrorCase::kAssign, id};
    text.clear();
    format_to(text, "`logical_core_id` to assign must be lower then total number of logical devices per replica. "
              "Received logical device id {} but there are only total of {} logical devices in replica.", id, n);
    RT_RETURN_IF_ERROR(run_case(assign_case, *whole_board, StatusCode::kInvalidArgument, text.view()));
  }
  if (n > 1) {
    const ErrorCase conv_case{"uneven conv2d output", {1, n, 4, 1}, 4, {1, n, 1, 1}, 4, ErrorCase::kUnevenConv, 0};
    text.clear();
    format_to(text, "conv2d over logical devices: the output's height ({}) does not split evenly into the input's {} "
              "pieces along it", (n + 1) / 2, n);
    RT_RETURN_IF_ERROR(run_case(conv_case, *whole_board, StatusCode::kUnimplemented, text.view()));
  }
  RT_RETURN_IF_ERROR(outside_replicate(cores));
  rt::log_info("model-parallel error texts: split (rank, divisibility, product, in TF's order), assign, uneven "
               "conv2d over {} logical devices, and outside replicate: ok",
               n);
  return Status::ok();
}

}  // namespace model_parallel_test
