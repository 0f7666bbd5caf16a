// Outside compilation and outfeed for device code: free functions over the board's one link
// endpoint (endpoint.hpp), which the firmware registers at boot (firmware/link_service.cpp). Any
// core may call them, all at once; each call blocks its core until the host answers or the
// timeout passes.
//
//   FixedString<64> text;
//   RT_RETURN_IF_ERROR(rt::link::host_call("format", "1{}", {x}, {HostResult::text(text)}));
//
// Text results come back as int8 vectors (host_result.hpp); the text argument travels next to the
// function name (call_text.hpp). Without a registered endpoint every call fails with UNAVAILABLE.
#pragma once
#include "endpoint.hpp"

namespace rt::link {

inline constexpr uint64_t kDefaultHostCallTimeoutNs = 30000ull * 1000000ull;

void set_board_endpoint(Endpoint* endpoint);
Endpoint* board_endpoint();

Status host_call(StringView function, StringView text_argument, Span<const Tensor> arguments,
                 Span<const HostResult> results, uint64_t timeout_ns = kDefaultHostCallTimeoutNs,
                 uint16_t replica = kNoReplica);

// A host call the core does not wait for (Endpoint::host_call_detached).
Status host_call_detached(StringView function, StringView text_argument, Span<const Tensor> arguments,
                          uint64_t timeout_ns = kDefaultHostCallTimeoutNs, uint16_t replica = kNoReplica);

Status outfeed(uint16_t queue, Span<const Tensor> tuple, uint64_t timeout_ns = kDefaultHostCallTimeoutNs);

}  // namespace rt::link
