// A collective across boards as a host call (pod_bridge.hpp).
#include "pod_bridge.hpp"

#include "runtime/link/protocol/host_call.hpp"
#include "runtime/tpu/mesh/pod_membership.hpp"
#include "runtime/tensor/tensor.hpp"

namespace rt::tpu {
namespace {

Result<Tensor> vector_view(DType type, const void* data, size_t elements) {
  const int64_t count = static_cast<int64_t>(elements);
  const Shape shape = RT_TRY(Shape::make(Span<const int64_t>(&count, 1)));
  return Tensor::contiguous(type, shape, const_cast<void*>(data));
}

// Room for a group of a whole pod (kMaxPodDevices): 64 member tasks ("15," each) and, for
// collective_permute, 64 pairs ("62:63," each), about 700 characters with the rest.
constexpr size_t kCallTextChars = 1024;
using CallText = FixedString<kCallTextChars>;

void describe(const CrossBoardCall& call, CallText& text) {
  format_to(text, "{} op={} type={} count={} members=", cross_board_kind_name(call.kind), reduce_op_name(call.op),
            dtype_name(call.type), call.count);
  for (unsigned j = 0; j < call.group_size; ++j) format_to(text, "{}{}", j == 0 ? "" : ",", call.member_tasks[j]);
  format_to(text, " source={} seq={} first={} lc={}", call.source_position, call.sequence, call.first_member,
            call.logical_core);
  if (call.shape != nullptr) {  // "shape=[2,2]": tpu compares every board's text before trading rows
    text.append(" shape=[");
    for (unsigned d = 0; d < call.shape->rank; ++d) format_to(text, "{}{}", d == 0 ? "" : ",", call.shape->dims[d]);
    text.append("]");
  }
  if (!call.by_members) return;
  text.append(" by=members");
  if (call.kind == CrossBoardKind::kAllToAll)
    format_to(text, " blocks={},{},{},{}", call.blocks.split_rows, call.blocks.split_row_bytes, call.blocks.concat_rows,
              call.blocks.concat_row_bytes);
  if (call.kind == CrossBoardKind::kCollectivePermute) {
    text.append(" pairs=");
    for (size_t i = 0; i + 1 < call.pairs.size(); i += 2)
      format_to(text, "{}{}:{}", i == 0 ? "" : ",", call.pairs[i], call.pairs[i + 1]);
  }
}

// The call's tensors and result slots, by the board's part or by its members' buffers: at most one
// per member on this board (local, hence hal::kMaxCores).
struct CallBuffers {
  Tensor arguments[hal::kMaxCores];
  link::HostResult results[hal::kMaxCores];
  unsigned argument_count = 0, result_count = 0;
};

Status fill_buffers(const CrossBoardCall& call, CallBuffers& buffers) {
  if (call.by_members) {
    for (unsigned j = 0; j < call.inputs_here; ++j)
      buffers.arguments[buffers.argument_count++] = RT_TRY(vector_view(call.type, call.member_in[j], call.count));
    for (unsigned j = 0; j < call.outputs_here; ++j)
      buffers.results[buffers.result_count++] =
          link::HostResult::tensor(RT_TRY(vector_view(call.type, call.member_out[j], call.out_elements)));
    return Status::ok();
  }
  if (call.row != nullptr) buffers.arguments[buffers.argument_count++] = RT_TRY(vector_view(call.type, call.row, call.row_elements));
  if (call.kind != CrossBoardKind::kBarrier)
    buffers.results[buffers.result_count++] = link::HostResult::tensor(RT_TRY(vector_view(call.type, call.out, call.out_elements)));
  return Status::ok();
}

// What a person reads of the call when it fails: "all_reduce #3 across boards (sum of 2 float32; 4
// members on tasks 0-1)", the tasks as ascending ranges of the distinct ones, and the logical core when
// it is not 0 (two logical cores' calls of one group are told apart by it).
void describe_for_error(const CrossBoardCall& call, FixedString<160>& text) {
  format_to(text, "{} #{} across boards (", cross_board_kind_name(call.kind), call.sequence);
  if (call.kind == CrossBoardKind::kAllReduce || call.kind == CrossBoardKind::kReduceScatter)
    format_to(text, "{} of ", reduce_op_name(call.op));
  if (call.kind != CrossBoardKind::kBarrier) format_to(text, "{} {}; ", call.count, dtype_name(call.type));
  bool on_task[kMaxPodTasks] = {};
  for (unsigned j = 0; j < call.group_size; ++j)
    if (call.member_tasks[j] < kMaxPodTasks) on_task[call.member_tasks[j]] = true;
  format_to(text, "{} members on tasks ", call.group_size);
  for (unsigned t = 0, written = 0; t < kMaxPodTasks; ++t) {
    if (!on_task[t] || (t > 0 && on_task[t - 1])) continue;  // the start of a range
    unsigned last = t;
    while (last + 1 < kMaxPodTasks && on_task[last + 1]) ++last;
    format_to(text, "{}{}", written++ == 0 ? "" : ", ", t);
    if (last != t) format_to(text, "-{}", last);
  }
  if (call.logical_core != 0) format_to(text, "; logical core {}", call.logical_core);
  text.append(")");
}

}  // namespace

Status exchange_across_boards(const CrossBoardCall& call) {
  CallText text;
  describe(call, text);
  if (text.truncated())  // tpu would parse another group than this one
    return internal_error("{} across boards: the call's text outgrew its {} characters", cross_board_kind_name(call.kind),
                          kCallTextChars);
  CallBuffers buffers;
  Status status = fill_buffers(call, buffers);
  if (status.is_ok())
    status = link::host_call(kPodFunction, text.view(), Span<const Tensor>(buffers.arguments, buffers.argument_count),
                             Span<const link::HostResult>(buffers.results, buffers.result_count), call.timeout_ns,
                             static_cast<uint16_t>(call.first_member));
  if (status.is_ok()) return status;
  FixedString<160> what;
  describe_for_error(call, what);
  if (status.code() == StatusCode::kDeadlineExceeded)  // tpu got no part from a board of the group in time
    return Status::error(status.code(), "{}: {} (another board's part never came; tpu says which)", what.view(),
                         status.message());
  return Status::error(status.code(), "{}: {}", what.view(), status.message());
}

}  // namespace rt::tpu
