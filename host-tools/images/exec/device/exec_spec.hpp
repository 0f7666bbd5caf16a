// The exec app's parsed op request (grammar: exec_protocol.hpp). The host is trusted no more than
// any input: every key, number, dtype and count is checked, and a bad spec is an INVALID_ARGUMENT
// naming the token.
#pragma once
#include "exec_protocol.hpp"
#include "runtime/collectives/reduce.hpp"
#include "runtime/ops/conv2d.hpp"
#include "runtime/tpu/replicate/computation.hpp"

namespace exec_app {

enum class ExecOp : uint8_t {
  kMatmul,
  kConv2d,
  kCrossReplicaSum,
  kAllReduce,
  kAllGather,
  kAllToAll,
  kCollectivePermute,
  kReplicatePadded,
};

inline constexpr unsigned kMaxExecInputs = 4;
// tpu exec runs on one board: its replicas are that board's cores (hal::kMaxCores at most), not a
// pod's (kMaxReplicas), which keeps the spec (parsed on a core's stack) small.
inline constexpr unsigned kMaxExecReplicas = hal::kMaxCores;
inline constexpr unsigned kMaxExecTensors = kMaxExecReplicas * kMaxExecInputs;
inline constexpr unsigned kMaxPairValues = 2 * kMaxExecReplicas * kMaxExecReplicas;

struct TensorSpec {
  rt::DType dtype = rt::DType::kF32;
  rt::Shape shape;
};

struct ExecSpec {
  ExecOp op = ExecOp::kMatmul;
  bool has_op = false;
  unsigned replicas = 1;
  unsigned inputs = 0;  // per replica
  unsigned tensors = 0;
  TensorSpec tensor[kMaxExecTensors];
  rt::Conv2dOptions conv;
  rt::ReduceOp reduce = rt::ReduceOp::kSum;
  int64_t split_dimension = 0;
  int64_t concat_dimension = 0;
  int64_t split_count = 0;  // 0: the replica count
  unsigned pair_values = 0;
  int64_t pairs[kMaxPairValues] = {};
  unsigned max_shape_rank = 0;
  bool has_max_shape = false;
  int64_t max_shape[rt::kMaxRank] = {};
  bool pad_power_of_two = false;
};

const char* exec_op_name(ExecOp op);

// Parses `text` into `spec` (reset first); checks the tensor count against replicas x inputs.
rt::Status parse_exec_spec(rt::StringView text, ExecSpec& spec);

}  // namespace exec_app
