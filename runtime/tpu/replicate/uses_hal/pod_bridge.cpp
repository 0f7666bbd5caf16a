// A collective across boards as a host call (pod_bridge.hpp).
#include "pod_bridge.hpp"

#include "runtime/link/protocol/host_call.hpp"
#include "runtime/tensor/tensor.hpp"

namespace rt::tpu {
namespace {

Result<Tensor> vector_view(DType type, const void* data, size_t elements) {
  const int64_t count = static_cast<int64_t>(elements);
  const Shape shape = RT_TRY(Shape::make(Span<const int64_t>(&count, 1)));
  return Tensor::contiguous(type, shape, const_cast<void*>(data));
}

}  // namespace

Status exchange_across_boards(const CrossBoardCall& call) {
  FixedString<256> text;
  format_to(text, "{} op={} type={} count={} members=", cross_board_kind_name(call.kind), reduce_op_name(call.op),
            dtype_name(call.type), call.count);
  for (unsigned j = 0; j < call.group_size; ++j) format_to(text, "{}{}", j == 0 ? "" : ",", call.member_tasks[j]);
  format_to(text, " source={} seq={} first={}", call.source_position, call.sequence, call.first_member);
  Tensor row, out;
  const bool has_row = call.row != nullptr, has_out = call.kind != CrossBoardKind::kBarrier;
  if (has_row) row = RT_TRY(vector_view(call.type, call.row, call.row_elements));
  if (has_out) out = RT_TRY(vector_view(call.type, call.out, call.out_elements));
  const link::HostResult into[] = {link::HostResult::tensor(out)};
  const Status status =
      link::host_call(kPodFunction, text.view(), Span<const Tensor>(&row, has_row ? 1 : 0),
                      Span<const link::HostResult>(into, has_out ? 1 : 0), call.timeout_ns,
                      static_cast<uint16_t>(call.first_member));
  if (status.is_ok()) return status;
  return Status::error(status.code(), "{} across boards ({}): {}", cross_board_kind_name(call.kind), text.view(),
                       status.message());
}

}  // namespace rt::tpu
