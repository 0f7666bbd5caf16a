// infeed_steps (see infeed_host_function.hpp).
#include "infeed_host_function.hpp"

#include <charconv>
#include <cstring>

namespace tpu {
namespace {

HostTensor int64_scalar(int64_t value) {
  HostTensor tensor;
  tensor.dtype = rt::DType::kI64;
  tensor.bytes.resize(sizeof value);
  std::memcpy(tensor.bytes.data(), &value, sizeof value);
  return tensor;
}

HostCallOutcome infeed_steps(const InfeedSender& sender, const HostCallRequest& request) {
  unsigned queue = 0;
  const char* end = request.text.data() + request.text.size();
  const auto parsed = std::from_chars(request.text.data(), end, queue);
  if (request.text.empty() || parsed.ec != std::errc() || parsed.ptr != end || queue > 65535)
    return HostCallOutcome::error(rt::StatusCode::kInvalidArgument,
                                  "infeed_steps takes a link queue number as its text, got '" + request.text + "'");
  const InfeedDataset* dataset = sender.dataset(static_cast<uint16_t>(queue));
  if (dataset == nullptr)
    return HostCallOutcome::error(rt::StatusCode::kNotFound, "no --infeed dataset for queue " + std::to_string(queue) +
                                                                 " (run with `tpu run --infeed " + std::to_string(queue) +
                                                                 "=FILE.npy[,FILE2.npy...]`)");
  return HostCallOutcome::ok({int64_scalar(static_cast<int64_t>(dataset->steps()))});
}

}  // namespace

void add_infeed_functions(HostFunctions& functions, const InfeedSender& sender) {
  functions.add("infeed_steps",
                [&sender](const HostCallRequest& request, const HostEnvironment&) { return infeed_steps(sender, request); });
}

}  // namespace tpu
