// Parsing the exec app's op spec (exec_spec.hpp): tokens, numbers, lists, dtypes.
#include "exec_spec.hpp"

namespace exec_app {
namespace {

using rt::Status;
using rt::StringView;

constexpr ExecOp kOps[] = {ExecOp::kMatmul,    ExecOp::kConv2d,   ExecOp::kCrossReplicaSum,   ExecOp::kAllReduce,
                           ExecOp::kAllGather, ExecOp::kAllToAll, ExecOp::kCollectivePermute, ExecOp::kReplicatePadded};
constexpr rt::DType kDTypes[] = {rt::DType::kF32, rt::DType::kF64, rt::DType::kBF16, rt::DType::kF16, rt::DType::kI8,
                                 rt::DType::kI32, rt::DType::kU32, rt::DType::kI64, rt::DType::kBool, rt::DType::kC64};
constexpr rt::ReduceOp kReduceOps[] = {rt::ReduceOp::kSum, rt::ReduceOp::kMean, rt::ReduceOp::kMax, rt::ReduceOp::kMin};

rt::Result<int64_t> parse_integer(StringView text) {
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) i = 1;
  if (i == text.size() || text.size() - i > 15) return rt::invalid_argument("exec: '{}' is not an integer", text);
  int64_t value = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return rt::invalid_argument("exec: '{}' is not an integer", text);
    value = value * 10 + (text[i] - '0');
  }
  return negative ? -value : value;
}

// "1,2,3" -> values; an empty text is an empty list.
rt::Result<unsigned> parse_list(StringView text, int64_t* values, unsigned capacity) {
  unsigned count = 0;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const StringView item = text.substr(0, comma);
    if (count == capacity) return rt::invalid_argument("exec: more than {} values in a list", capacity);
    values[count++] = RT_TRY(parse_integer(item));
    if (comma == StringView::npos) break;
    text = text.substr(comma + 1);
    if (text.empty()) return rt::invalid_argument("exec: a list ends with ','");
  }
  return count;
}

rt::Result<rt::DType> parse_dtype(StringView name) {
  for (rt::DType dtype : kDTypes)
    if (name == StringView(rt::dtype_name(dtype))) return dtype;
  return rt::invalid_argument("exec: unknown dtype '{}'", name);
}

Status parse_tensor(StringView value, ExecSpec& spec) {
  if (spec.tensors == kMaxExecTensors) return rt::invalid_argument("exec: more than {} tensors", kMaxExecTensors);
  const size_t colon = value.find(':');
  if (colon == StringView::npos) return rt::invalid_argument("exec: tensor '{}' lacks ':' (dtype:dims)", value);
  const rt::DType dtype = RT_TRY(parse_dtype(value.substr(0, colon)));
  int64_t dims[rt::kMaxRank];
  const unsigned rank = RT_TRY(parse_list(value.substr(colon + 1), dims, rt::kMaxRank));
  const rt::Shape shape = RT_TRY(rt::Shape::make(rt::Span<const int64_t>(dims, rank)));
  spec.tensor[spec.tensors++] = TensorSpec{dtype, shape};
  return Status::ok();
}

Status parse_pair_of(StringView value, int64_t (&out)[2], StringView key) {
  const unsigned count = RT_TRY(parse_list(value, out, 2));
  if (count != 2) return rt::invalid_argument("exec: {} takes two values (height,width), got '{}'", key, value);
  return Status::ok();
}

Status parse_op(StringView value, ExecSpec& spec) {
  for (ExecOp op : kOps)
    if (value == StringView(exec_op_name(op))) {
      spec.op = op;
      spec.has_op = true;
      return Status::ok();
    }
  return rt::invalid_argument("exec: unknown op '{}'", value);
}

Status parse_count(StringView value, unsigned low, unsigned high, unsigned& out, StringView key) {
  const int64_t number = RT_TRY(parse_integer(value));
  if (number < low || number > high) return rt::invalid_argument("exec: {}={} is outside {}..{}", key, number, low, high);
  out = static_cast<unsigned>(number);
  return Status::ok();
}

Status parse_reduce(StringView value, ExecSpec& spec) {
  for (rt::ReduceOp op : kReduceOps)
    if (value == StringView(rt::reduce_op_name(op))) {
      spec.reduce = op;
      return Status::ok();
    }
  return rt::invalid_argument("exec: unknown reduction '{}' (sum, mean, max, min)", value);
}

Status parse_padding(StringView value, ExecSpec& spec) {
  if (value == "VALID") spec.conv.padding = rt::ConvPadding::kValid;
  else if (value == "SAME") spec.conv.padding = rt::ConvPadding::kSame;
  else return rt::invalid_argument("exec: padding must be VALID or SAME, got '{}'", value);
  return Status::ok();
}

Status parse_integer_into(StringView value, int64_t& out) {
  out = RT_TRY(parse_integer(value));
  return Status::ok();
}

Status parse_token(StringView key, StringView value, ExecSpec& spec) {
  if (key == "op") return parse_op(value, spec);
  if (key == "replicas") return parse_count(value, 1, kMaxExecReplicas, spec.replicas, key);
  if (key == "inputs") return parse_count(value, 0, kMaxExecInputs, spec.inputs, key);
  if (key == "t") return parse_tensor(value, spec);
  if (key == "padding") return parse_padding(value, spec);
  if (key == "strides") return parse_pair_of(value, spec.conv.strides, key);
  if (key == "dilations") return parse_pair_of(value, spec.conv.dilations, key);
  if (key == "reduce") return parse_reduce(value, spec);
  if (key == "split_dimension") return parse_integer_into(value, spec.split_dimension);
  if (key == "concat_dimension") return parse_integer_into(value, spec.concat_dimension);
  if (key == "split_count") return parse_integer_into(value, spec.split_count);
  if (key == "pad_power_of_two") {
    spec.pad_power_of_two = value == "1";
    return Status::ok();
  }
  if (key == "pairs") {
    const unsigned count = RT_TRY(parse_list(value, spec.pairs, kMaxPairValues));
    if (count % 2 != 0) return rt::invalid_argument("exec: pairs needs an even number of values, got {}", count);
    spec.pair_values = count;
    return Status::ok();
  }
  if (key == "max_shape") {
    spec.max_shape_rank = RT_TRY(parse_list(value, spec.max_shape, rt::kMaxRank));
    spec.has_max_shape = true;
    return Status::ok();
  }
  return rt::invalid_argument("exec: unknown key '{}'", key);
}

}  // namespace

const char* exec_op_name(ExecOp op) {
  switch (op) {
    case ExecOp::kMatmul: return "matmul";
    case ExecOp::kConv2d: return "conv2d";
    case ExecOp::kCrossReplicaSum: return "cross_replica_sum";
    case ExecOp::kAllReduce: return "all_reduce";
    case ExecOp::kAllGather: return "all_gather";
    case ExecOp::kAllToAll: return "all_to_all";
    case ExecOp::kCollectivePermute: return "collective_permute";
    case ExecOp::kReplicatePadded: return "replicate_padded";
  }
  return "unknown";
}

Status parse_exec_spec(StringView text, ExecSpec& spec) {
  spec = ExecSpec();
  while (!text.empty()) {
    const size_t space = text.find(' ');
    const StringView token = text.substr(0, space);
    text = space == StringView::npos ? StringView() : text.substr(space + 1);
    if (token.empty()) continue;
    const size_t equals = token.find('=');
    if (equals == StringView::npos) return rt::invalid_argument("exec: token '{}' is not key=value", token);
    RT_RETURN_IF_ERROR(parse_token(token.substr(0, equals), token.substr(equals + 1), spec));
  }
  if (!spec.has_op) return rt::invalid_argument("exec: the spec names no op");
  if (spec.tensors != spec.replicas * spec.inputs)
    return rt::invalid_argument("exec: {} tensors for {} replicas x {} inputs", spec.tensors, spec.replicas, spec.inputs);
  return Status::ok();
}

}  // namespace exec_app
