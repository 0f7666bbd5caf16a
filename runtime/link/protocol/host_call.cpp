// The board's registered link endpoint and the free host_call/outfeed functions over it.
#include "host_call.hpp"

namespace rt::link {
namespace {

Atomic<Endpoint*> registered{nullptr};

Status no_endpoint(StringView what) {
  return Status::error(StatusCode::kUnavailable, "{}: this image has no host link (no endpoint registered)", what);
}

}  // namespace

void set_board_endpoint(Endpoint* endpoint) { registered.store(endpoint, MemoryOrder::kRelease); }
Endpoint* board_endpoint() { return registered.load(MemoryOrder::kAcquire); }

Status host_call(StringView function, StringView text_argument, Span<const Tensor> arguments,
                 Span<const HostResult> results, uint64_t timeout_ns, uint16_t replica) {
  Endpoint* endpoint = board_endpoint();
  if (endpoint == nullptr) return no_endpoint(function);
  return endpoint->host_call(function, text_argument, arguments, results, timeout_ns, replica);
}

Status host_call_detached(StringView function, StringView text_argument, Span<const Tensor> arguments,
                          uint64_t timeout_ns, uint16_t replica) {
  Endpoint* endpoint = board_endpoint();
  if (endpoint == nullptr) return no_endpoint(function);
  return endpoint->host_call_detached(function, text_argument, arguments, timeout_ns, replica);
}

Status outfeed(uint16_t queue, Span<const Tensor> tuple, uint64_t timeout_ns) {
  Endpoint* endpoint = board_endpoint();
  if (endpoint == nullptr) return no_endpoint("outfeed");
  return endpoint->outfeed(queue, tuple, timeout_ns);
}

}  // namespace rt::link
