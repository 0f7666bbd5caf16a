// A cross-board reduction as a host call (pod_bridge.hpp).
#include "pod_bridge.hpp"

#include "runtime/link/protocol/host_call.hpp"
#include "runtime/tensor/tensor.hpp"

namespace rt::tpu {

Status reduce_across_boards(const CrossBoardReduce& request) {
  const int64_t count = static_cast<int64_t>(request.count);
  const Shape shape = RT_TRY(Shape::make(Span<const int64_t>(&count, 1)));
  const Tensor partial = Tensor::contiguous(request.type, shape, const_cast<void*>(request.partial));
  const Tensor out = Tensor::contiguous(request.type, shape, request.out);
  FixedString<160> text;
  format_to(text, "all_reduce op={} type={} count={} tasks=", reduce_op_name(request.op), dtype_name(request.type),
            request.count);
  for (unsigned t = 0; t < request.num_tasks; ++t) format_to(text, "{}{}", t == 0 ? "" : ",", request.tasks[t]);
  format_to(text, " seq={} first={}", request.sequence, request.first_member);
  const link::HostResult into[] = {link::HostResult::tensor(out)};
  const Status status = link::host_call(kPodFunction, text.view(), Span<const Tensor>(&partial, 1), into,
                                        request.timeout_ns, static_cast<uint16_t>(request.first_member));
  if (status.is_ok()) return status;
  return Status::error(status.code(), "cross_replica_sum across boards ({}): {}", text.view(), status.message());
}

}  // namespace rt::tpu
