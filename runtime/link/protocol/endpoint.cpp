// The board's link endpoint (design in endpoint.hpp): frame output, the receive pump, the
// hello handshake, host calls routed by channel and id, outfeed and results.
#include "endpoint.hpp"

#include "call_text.hpp"
#include "runtime/trace/core_status.hpp"

namespace rt::link {
namespace {

constexpr size_t kPollBudgetBytes = 2 * kMaxWireFrameBytes;  // per poll(): bounded receive-lock hold
constexpr size_t kPollBudgetFrames = 64;                      // the same on a frame transport
constexpr uint64_t kNanosPerMilli = 1000000;

// now + timeout, saturating (a huge timeout means "practically forever").
uint64_t deadline_after(uint64_t now, uint64_t timeout_ns) { return timeout_ns > ~0ull - now ? ~0ull : now + timeout_ns; }

Span<const int64_t> dims_of(const Shape& shape) { return shape.sizes(); }

bool same_shape(const Shape& a, const Shape& b) {
  if (a.rank != b.rank) return false;
  for (unsigned d = 0; d < a.rank; ++d)
    if (a.dims[d] != b.dims[d]) return false;
  return true;
}

// A reply of another count of results than its call has, in chunks or in place: the same words.
Status result_count_error(uint32_t id, StringView function, unsigned got, size_t expected) {
  return invalid_argument("host call {} '{}' returned {} results, the caller expects {}", id, function, got, expected);
}

// RAII for the port's output lock.
class OutputLock {
 public:
  explicit OutputLock(LinkPort& port) : port_(port) { port_.lock_output(); }
  ~OutputLock() { port_.unlock_output(); }
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  LinkPort& port_;
};

}  // namespace

Endpoint::Endpoint(LinkPort& port, const BoardIdentity& identity)
    : port_(port), transport_(port.frame_transport()), identity_(identity), decoder_(*this, kMessageKinds) {}

// ---------------------------------------------------------------- output

Status Endpoint::send_frame(MessageKind kind, uint16_t channel, Span<const uint8_t> payload) {
  const unsigned core = port_.core();
  if (core >= kMaxLinkCores) return internal_error("core {} is beyond the link's {} cores", core, kMaxLinkCores);
  OutputLock lock(port_);
  const FrameHeader header = message_header(kind, channel, send_sequence_);
  if (transport_ != nullptr) {
    RT_RETURN_IF_ERROR(transport_->send(header, payload));
    ++send_sequence_;
    return Status::ok();
  }
  Span<uint8_t> wire(buffers_[core].wire, kMaxWireFrameBytes);
  Result<size_t> size = encode_frame(header, payload, wire, kMessageKinds);
  if (!size) return size.status();
  ++send_sequence_;
  port_.write(wire.subspan(0, *size));
  return Status::ok();
}

Status Endpoint::send_hello() {
  Hello hello;
  hello.role = PeerRole::kBoard;
  hello.core_count = identity_.cores;
  if (transport_ != nullptr) hello.max_payload = static_cast<uint16_t>(transport_->max_receive_payload());
  for (unsigned i = 0; i < 4; ++i) hello.mesh_shape[i] = identity_.mesh_shape[i];
  hello.board = identity_.board;
  hello.app = identity_.app;
  Span<uint8_t> payload(buffers_[port_.core()].payload, kMaxPayload);
  Result<size_t> size = encode_hello(hello, payload);
  if (!size) return size.status();
  return send_frame(MessageKind::kHello, 0, payload.subspan(0, *size));
}

void Endpoint::send_error(StatusCode code, const FrameView& related, StringView message) {
  ++counters_.rejected;
  ErrorMessage error;
  error.code = code;
  error.related_kind = related.header.kind;
  error.related_sequence = related.header.sequence;
  error.message = message;
  Span<uint8_t> payload(buffers_[port_.core()].payload, kMaxPayload);
  Result<size_t> size = encode_error(error, payload);
  if (size) (void)send_frame(MessageKind::kError, related.header.channel, payload.subspan(0, *size));
}

Status Endpoint::send_log(char level, StringView text) {
  if (!host_connected()) return Status::error(StatusCode::kUnavailable, "no host on the link");
  Span<uint8_t> payload(buffers_[port_.core()].payload, kMaxPayload);
  Result<size_t> size = encode_log(LogMessage{level, text.substr(0, kMaxPayload - 1)}, payload);
  if (!size) return size.status();
  return send_frame(MessageKind::kLog, static_cast<uint16_t>(port_.core()), payload.subspan(0, *size));
}

Status Endpoint::send_result(unsigned core, const Status& outcome) {
  poll();  // a host hello may be waiting
  if (!host_connected()) {  // another core may be decoding the host's hello right now: wait for it
    lock_receive();
    unlock_receive();
    poll();
  }
  if (!host_connected()) return Status::error(StatusCode::kUnavailable, "no host on the link");
  CallMessage result;
  result.id = 0;
  result.status = outcome.code();
  result.text = outcome.is_ok() ? StringView() : outcome.message();
  Span<uint8_t> payload(buffers_[port_.core()].payload, kMaxPayload);
  Result<size_t> size = encode_call(MessageKind::kResult, result, payload);
  if (!size) return size.status();
  return send_frame(MessageKind::kResult, static_cast<uint16_t>(core), payload.subspan(0, *size));
}

// ---------------------------------------------------------------- the receive pump

bool Endpoint::try_lock_receive() {
  uint32_t expected = 0;
  return receive_busy_.compare_exchange(expected, 1, MemoryOrder::kSeqCst);  // ordered with unlock_receive's wake
}

// A core waiting in lock_receive() may sleep until woken (the port's idle()): the holder wakes it.
void Endpoint::unlock_receive() {
  receive_busy_.store(0, MemoryOrder::kSeqCst);
  if (receive_waiters_.load(MemoryOrder::kSeqCst) != 0) port_.wake_all();
}

// Waits until the receive lock is free. There is no give-up: the callers (cancelling a call,
// attaching or detaching an infeed buffer) must not proceed while a decoder may still write into
// the buffers involved, and the holder is always inside one poll(), which reads at most
// kPollBudgetBytes and can only block on writing its own replies to the UART.
void Endpoint::lock_receive() {
  if (try_lock_receive()) return;
  receive_waiters_.fetch_add(1);
  while (!try_lock_receive()) port_.idle();
  receive_waiters_.fetch_sub(1);
}

size_t Endpoint::poll() {
  if (!try_lock_receive()) return 0;
  if (transport_ != nullptr) {
    const size_t frames = transport_->receive(*this, kPollBudgetFrames);
    unlock_receive();
    return frames;
  }
  uint8_t chunk[64];
  size_t total = 0;
  while (total < kPollBudgetBytes) {
    size_t count = 0;
    for (int byte; count < sizeof chunk && (byte = port_.read_byte()) >= 0;) chunk[count++] = static_cast<uint8_t>(byte);
    if (count == 0) break;
    decoder_.feed(Span<const uint8_t>(chunk, count));
    total += count;
  }
  unlock_receive();
  return total;
}

Status Endpoint::wait_for_host(uint64_t timeout_ns, StringView purpose) {
  const uint64_t deadline = deadline_after(port_.now_ns(), timeout_ns);
  trace::WaitMark wait;  // in the core's status record: a host call with no id yet, named by its purpose
  for (;;) {
    const size_t received = poll();
    if (host_connected()) return Status::ok();
    RT_RETURN_IF_ERROR(link_failure());
    if (port_.now_ns() >= deadline) {
      wait.gave_up();
      return deadline_exceeded(
          "core {} timed out after {} ms waiting for a host on the link to {} (no host hello arrived: is the "
          "board run by `tpu run`?)",
          port_.core(), timeout_ns / kNanosPerMilli, purpose);
    }
    if (!wait.marked()) wait.mark(port_.core(), trace::host_call_activity(purpose, 0));
    if (received == 0) port_.idle();
  }
}

Result<PodInfo> Endpoint::wait_for_pod(uint64_t timeout_ns) {
  const uint64_t deadline = deadline_after(port_.now_ns(), timeout_ns);
  for (;;) {
    const size_t received = poll();
    if (pod_known_.load(MemoryOrder::kAcquire)) return pod_;
    RT_RETURN_IF_ERROR(link_failure());
    if (port_.now_ns() >= deadline)
      return deadline_exceeded("core {} timed out after {} ms waiting for the host to say which task of its pod this "
                               "board is (the host's hello {})",
                               port_.core(), timeout_ns / kNanosPerMilli,
                               host_connected() ? "came, but no pod message after it" : "never came either");
    if (received == 0) port_.idle();
  }
}

void Endpoint::on_text(Span<const uint8_t> text) { (void)text; }  // the host sends no console text

void Endpoint::on_frame(const FrameView& frame) {
  if (seen_host_frame_ && frame.header.sequence != expected_host_sequence_) ++counters_.sequence_gaps;
  seen_host_frame_ = true;
  expected_host_sequence_ = frame.header.sequence + 1;
  switch (message_kind(frame.header)) {
    case MessageKind::kHello: on_hello(frame); break;
    case MessageKind::kPod: on_pod(frame); break;
    case MessageKind::kHostCallReply: on_reply(frame); break;
    case MessageKind::kHostCallReplyInPlace: on_reply_in_place(frame); break;
    case MessageKind::kError: on_host_error(frame); break;
    case MessageKind::kInfeedData: on_infeed(frame); break;  // infeed_endpoint.cpp
    case MessageKind::kInfeedInPlace: on_infeed_in_place(frame); break;
    case MessageKind::kInfeedSpec: on_infeed_spec(frame); break;
    default: {
      FixedString<96> message;
      format_to(message, "the board does not accept {} messages", message_kind_name(message_kind(frame.header)));
      send_error(StatusCode::kUnimplemented, frame, message.view());
    }
  }
}

void Endpoint::on_hello(const FrameView& frame) {
  Result<Hello> hello = parse_hello(frame.payload);
  if (!hello) return send_error(hello.status().code(), frame, hello.status().message());
  if (hello->role != PeerRole::kHost) return send_error(StatusCode::kInvalidArgument, frame, "a board hello sent to a board");
  if (send_hello().is_ok()) {
    host_connected_.store(true, MemoryOrder::kRelease);
    port_.wake_all();
  }
}

void Endpoint::fix_pod_place(const PodInfo& place) {
  pod_place_ = place;
  pod_place_fixed_.store(true, MemoryOrder::kRelease);
  if (host_connected()) send_pod_place();
}

void Endpoint::send_pod_place() {
  uint8_t payload[16];
  const Result<size_t> size = encode_pod_info(pod_place_, Span<uint8_t>(payload, sizeof payload));
  if (size) (void)send_frame(MessageKind::kPod, 0, Span<const uint8_t>(payload, *size));
}

void Endpoint::on_pod(const FrameView& frame) {
  Result<PodInfo> pod = parse_pod_info(frame.payload);
  if (!pod) return send_error(pod.status().code(), frame, pod.status().message());
  if (pod_place_fixed_.load(MemoryOrder::kAcquire)) return send_pod_place();  // fixed at boot: say which it is
  if (pod_known_.load(MemoryOrder::kAcquire)) return;  // the first kPod is the one the boot takes
  pod_ = *pod;
  pod_known_.store(true, MemoryOrder::kRelease);
  port_.wake_all();
}

// ---------------------------------------------------------------- host calls: replies

void Endpoint::finish_call(PendingCall& call, const Status& outcome) {
  call.outcome = outcome;
  call.state.store(static_cast<uint32_t>(CallState::kDone), MemoryOrder::kRelease);
  port_.wake_all();
}

void Endpoint::on_reply(const FrameView& frame) {
  const unsigned channel = frame.header.channel;
  Result<CallMessage> reply = parse_call(MessageKind::kHostCallReply, frame.payload);
  if (channel >= kMaxLinkCores) return send_error(StatusCode::kInvalidArgument, frame, "reply on a channel with no core");
  if (!reply) {  // its call id is unknown: it may be a late reply to a call that already timed out,
    send_error(reply.status().code(), frame, reply.status().message());  // so no waiting call is ended
    ++counters_.stale_replies;
    return;
  }
  PendingCall* call = waiting_call(channel, reply->id);
  if (call == nullptr) {
    ++counters_.stale_replies;
    return;
  }
  if (reply->status != StatusCode::kOk) return finish_call(*call, call_status(*reply));
  accept_reply_chunk(*call, *reply);
}

Endpoint::PendingCall* Endpoint::waiting_call(unsigned channel, uint32_t id) {
  auto matches = [id](PendingCall& call) {
    return call.state.load(MemoryOrder::kAcquire) == static_cast<uint32_t>(CallState::kWaiting) && call.id == id;
  };
  if (matches(calls_[channel])) return &calls_[channel];
  for (PendingCall& call : detached_[channel])
    if (matches(call)) return &call;
  return nullptr;
}

// A result the host wrote straight into its destination (a frame transport's target, armed by
// host_call): nothing to copy, only to check that it is the result the call expects next.
void Endpoint::on_reply_in_place(const FrameView& frame) {
  const unsigned channel = frame.header.channel;
  Result<InPlaceResult> reply = parse_in_place_result(frame.payload);
  if (!reply) return send_error(reply.status().code(), frame, reply.status().message());
  if (channel >= kMaxLinkCores || transport_ == nullptr)
    return send_error(StatusCode::kInvalidArgument, frame, "no armed result target on that channel");
  PendingCall* waiting = waiting_call(channel, reply->id);
  if (waiting == nullptr) {
    ++counters_.stale_replies;
    return;
  }
  PendingCall& call = *waiting;
  if (reply->tensor_count != call.results.size())
    return finish_call(call, result_count_error(call.id, call.function, reply->tensor_count, call.results.size()));
  if (reply->tensor_index != call.next_result || call.next_offset != 0 ||
      !transport_->reply_target_armed(channel, call.id, reply->tensor_index))
    return finish_call(call, Status::error(StatusCode::kAborted,
                                           "host call {} '{}': the host says result {} of {} is in place, but it is not "
                                           "the next result with an armed target",
                                           call.id, call.function, reply->tensor_index, reply->tensor_count));
  const Tensor& destination = call.results[reply->tensor_index].tensor_destination();
  if (reply->dtype != destination.dtype || !same_shape(reply->shape, destination.shape))
    return finish_call(call, invalid_argument("host call {} '{}': result {} should be {}{}, the host placed {}{}", call.id,
                                              call.function, reply->tensor_index, dtype_name(destination.dtype),
                                              dims_of(destination.shape), dtype_name(reply->dtype),
                                              dims_of(reply->shape)));
  if (++call.next_result < reply->tensor_count) return;
  finish_results(call);
}

void Endpoint::accept_reply_chunk(PendingCall& call, const CallMessage& reply) {
  if (reply.tensor_count != call.results.size())
    return finish_call(call, result_count_error(call.id, call.function, reply.tensor_count, call.results.size()));
  if (reply.tensor_count == 0) return finish_call(call, Status::ok());
  const TensorChunk& chunk = reply.chunk;
  if (reply.tensor_index != call.next_result || chunk.offset != call.next_offset)
    return finish_call(call, Status::error(StatusCode::kAborted,
                                           "host call {} '{}': reply chunk of result {} at byte {} arrived, expected "
                                           "result {} at byte {} (a frame from the host was lost)",
                                           call.id, call.function, reply.tensor_index, chunk.offset, call.next_result,
                                           call.next_offset));
  const HostResult& slot = call.results[reply.tensor_index];
  if (slot.is_text()) {
    if (chunk.dtype != DType::kI8 || chunk.shape.rank != 1)
      return finish_call(call, invalid_argument("host call {} '{}': result {} is text (an int8 vector), the host sent {}{}",
                                                call.id, call.function, reply.tensor_index, dtype_name(chunk.dtype),
                                                dims_of(chunk.shape)));
    slot.text_destination().append(
        StringView(reinterpret_cast<const char*>(chunk.data.data()), chunk.data.size()));
  } else {
    const Tensor& destination = slot.tensor_destination();
    if (chunk.dtype != destination.dtype || !same_shape(chunk.shape, destination.shape))
      return finish_call(call, invalid_argument("host call {} '{}': result {} should be {}{}, the host sent {}{}", call.id,
                                                call.function, reply.tensor_index, dtype_name(destination.dtype),
                                                dims_of(destination.shape), dtype_name(chunk.dtype),
                                                dims_of(chunk.shape)));
    if (!chunk.data.empty()) __builtin_memcpy(destination.data + chunk.offset, chunk.data.data(), chunk.data.size());
  }
  call.next_offset += chunk.data.size();
  if (call.next_offset < *tensor_byte_size(chunk.dtype, chunk.shape)) return;  // parse_call validated the size
  call.next_offset = 0;
  if (++call.next_result < reply.tensor_count) return;
  finish_results(call);
}

void Endpoint::finish_results(PendingCall& call) {
  for (const HostResult& result : call.results)
    if (result.is_text() && result.text_destination().truncated())
      return finish_call(call, Status::error(StatusCode::kResourceExhausted,
                                             "host call {} '{}': the text result does not fit the caller's buffer",
                                             call.id, call.function));
  finish_call(call, Status::ok());
}

void Endpoint::on_host_error(const FrameView& frame) {
  Result<ErrorMessage> error = parse_error(frame.payload);
  if (!error) return;  // never answer an error with an error (no ping-pong)
  const unsigned channel = frame.header.channel;
  if (error->related_kind != static_cast<uint8_t>(MessageKind::kHostCallRequest) || channel >= kMaxLinkCores) return;
  // The error names a request frame, not a call: it ends the core's own call if one waits, else its
  // oldest detached call (requests go out in order).
  auto waiting = [](PendingCall& call) {
    return call.state.load(MemoryOrder::kAcquire) == static_cast<uint32_t>(CallState::kWaiting);
  };
  PendingCall* rejected = waiting(calls_[channel]) ? &calls_[channel] : nullptr;
  if (rejected == nullptr)
    for (PendingCall& call : detached_[channel])
      if (waiting(call) && (rejected == nullptr || call.id < rejected->id)) rejected = &call;
  if (rejected == nullptr) return;
  finish_call(*rejected, Status::error(error->code, "core {}: the host rejected host call {} '{}': {}", channel,
                                       rejected->id, rejected->function, error->message));
}

// ---------------------------------------------------------------- host calls: requests

Result<StringView> Endpoint::build_call_text(StringView function, StringView argument, CoreBuffers& buffers) {
  if (function.empty()) return invalid_argument("a host call needs a function name");
  if (function.find(kCallTextSeparator) != StringView::npos)
    return invalid_argument("host function name '{}' contains a 0x00 byte", function);
  const size_t size = function.size() + (argument.empty() ? 0 : 1 + argument.size());
  // Room for the call header and a rank-6 chunk header with at least one data byte.
  const size_t room = kMaxPayload - 9 - tensor_chunk_header_size(kMaxRank) - 1;
  if (size > room)
    return invalid_argument("host call '{}': the function name and text argument take {} bytes, at most {} fit in a frame",
                            function, size, room);
  char* out = buffers.call_text;
  __builtin_memcpy(out, function.data(), function.size());
  if (!argument.empty()) {
    out[function.size()] = kCallTextSeparator;
    __builtin_memcpy(out + function.size() + 1, argument.data(), argument.size());
  }
  return StringView(out, size);
}

Status Endpoint::send_tensor_chunks(MessageKind kind, CallMessage& call, const Tensor& tensor) {
  if (!tensor.is_contiguous()) return invalid_argument("tensors sent to the host must be contiguous");
  Result<uint64_t> total = tensor_byte_size(tensor.dtype, tensor.shape);
  if (!total) return total.status();
  call.chunk.dtype = tensor.dtype;
  call.chunk.shape = tensor.shape;
  Span<uint8_t> payload(buffers_[port_.core()].payload, kMaxPayload);
  return for_each_chunk(Span<const uint8_t>(tensor.data, *total), max_chunk_data(call), call.chunk, [&]() -> Status {
    Result<size_t> encoded = encode_call(kind, call, payload);
    if (!encoded) return encoded.status();
    return send_frame(kind, static_cast<uint16_t>(port_.core()), payload.subspan(0, *encoded));
  });
}

Status Endpoint::send_call_request(uint32_t id, uint16_t replica, StringView text, Span<const Tensor> arguments,
                                   bool in_place_allowed) {
  if (arguments.size() > 255) return invalid_argument("a host call takes at most 255 tensors, got {}", arguments.size());
  CallMessage request;
  request.id = id;
  request.replica = replica;
  request.text = text;
  request.tensor_count = static_cast<uint8_t>(arguments.size());
  if (arguments.empty()) {
    Span<uint8_t> payload(buffers_[port_.core()].payload, kMaxPayload);
    Result<size_t> encoded = encode_call(MessageKind::kHostCallRequest, request, payload);
    if (!encoded) return encoded.status();
    return send_frame(MessageKind::kHostCallRequest, static_cast<uint16_t>(port_.core()),
                      payload.subspan(0, *encoded));
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    request.tensor_index = static_cast<uint8_t>(i);
    if (in_place_allowed && transport_ != nullptr && transport_->readable_in_place(tensor_memory(arguments[i])))
      RT_RETURN_IF_ERROR(send_argument_in_place(request, arguments[i]));
    else
      RT_RETURN_IF_ERROR(send_tensor_chunks(MessageKind::kHostCallRequest, request, arguments[i]));
  }
  return Status::ok();
}

// The host reads the argument where it is; the caller keeps it unchanged until the reply (host_call
// waits for it), so nothing is copied on the board.
Status Endpoint::send_argument_in_place(const CallMessage& request, const Tensor& tensor) {
  const InPlaceArgument argument{request.id,           request.replica, request.tensor_count,
                                 request.tensor_index, request.text,    tensor.dtype,
                                 tensor.shape,         reinterpret_cast<uintptr_t>(tensor.data)};
  Span<uint8_t> payload(buffers_[port_.core()].payload, kMaxPayload);
  Result<size_t> encoded = encode_in_place_argument(argument, payload);
  if (!encoded) return encoded.status();
  return send_frame(MessageKind::kHostCallArgumentInPlace, static_cast<uint16_t>(port_.core()),
                    payload.subspan(0, *encoded));
}

bool Endpoint::cancel_call(PendingCall& call) {
  lock_receive();  // no decoder is writing into the caller's buffers after this
  const bool done = call.state.load(MemoryOrder::kAcquire) == static_cast<uint32_t>(CallState::kDone);
  call.state.store(static_cast<uint32_t>(CallState::kIdle), MemoryOrder::kRelease);
  unlock_receive();
  return done;
}

Status Endpoint::wait_for_reply(PendingCall& call, uint64_t deadline_ns, uint64_t timeout_ns) {
  trace::WaitMark wait;  // the call in the core's status record while the host has it
  wait.mark(port_.core(), trace::host_call_activity(call.function, call.id));
  for (;;) {
    const size_t received = poll();
    if (call.state.load(MemoryOrder::kAcquire) == static_cast<uint32_t>(CallState::kDone)) {
      call.state.store(static_cast<uint32_t>(CallState::kIdle), MemoryOrder::kRelaxed);
      return call.outcome;
    }
    if (Status failure = link_failure(); !failure.is_ok()) {
      if (cancel_call(call)) return call.outcome;
      return failure;
    }
    if (port_.now_ns() >= deadline_ns) {
      if (cancel_call(call)) return call.outcome;  // the reply completed just now
      wait.gave_up();
      return deadline_exceeded("core {} timed out after {} ms waiting for the host's reply to host call {} '{}'",
                               port_.core(), timeout_ns / kNanosPerMilli, call.id, call.function);
    }
    if (received == 0) port_.idle();
  }
}

Status Endpoint::host_call(StringView function, StringView text_argument, Span<const Tensor> arguments,
                           Span<const HostResult> results, uint64_t timeout_ns, uint16_t replica) {
  const unsigned core = port_.core();
  if (core >= kMaxLinkCores) return internal_error("core {} is beyond the link's {} cores", core, kMaxLinkCores);
  if (results.size() > 255) return invalid_argument("a host call returns at most 255 results, {} slots given", results.size());
  for (const HostResult& result : results) {
    if (result.is_text()) result.text_destination().clear();
    else if (!result.tensor_destination().is_contiguous())
      return invalid_argument("host call '{}': result tensors must be contiguous", function);
  }
  const uint64_t deadline = deadline_after(port_.now_ns(), timeout_ns);
  const StringView text = RT_TRY(open_call(core, function, text_argument, timeout_ns));
  PendingCall& call = start_call(calls_[core], function, results);
  const bool armed = transport_ != nullptr && transport_->arm_reply_targets(core, call.id, HostResultTargets(results));
  Status outcome = send_call_request(call.id, replica, text, arguments);
  if (!outcome.is_ok()) cancel_call(call);
  else outcome = wait_for_reply(call, deadline, timeout_ns);
  if (armed) transport_->disarm_reply_targets(core);  // after this, the host writes nothing more for this call
  return outcome;
}

Result<StringView> Endpoint::open_call(unsigned core, StringView function, StringView text_argument,
                                       uint64_t timeout_ns, bool detached) {
  Result<StringView> text = build_call_text(function, text_argument, buffers_[core]);
  if (!text) return text.status();
  FixedString<64> purpose;
  format_to(purpose, "call '{}'", function);
  RT_RETURN_IF_ERROR(wait_for_host(timeout_ns, purpose.view()));
  if (!detached) RT_RETURN_IF_ERROR(settle_detached_call());
  return text;
}

Endpoint::PendingCall& Endpoint::start_call(PendingCall& call, StringView function, Span<const HostResult> results) {
  call.id = next_call_id_.fetch_add(1, MemoryOrder::kRelaxed);
  call.function = function;
  call.results = results;
  call.next_result = 0;
  call.next_offset = 0;
  call.detached = false;
  call.state.store(static_cast<uint32_t>(CallState::kWaiting), MemoryOrder::kRelease);
  return call;
}

Status Endpoint::host_call_detached(StringView function, StringView text_argument, Span<const Tensor> arguments,
                                    uint64_t timeout_ns, uint16_t replica) {
  const unsigned core = port_.core();
  if (core >= kMaxLinkCores) return internal_error("core {} is beyond the link's {} cores", core, kMaxLinkCores);
  const StringView text = RT_TRY(open_call(core, function, text_argument, timeout_ns, /*detached=*/true));
  PendingCall& call = start_call(*RT_TRY(detached_slot(core)), function, {});
  call.detached_name.clear();
  call.detached_name.append(function);
  call.function = call.detached_name.view();
  call.deadline_ns = deadline_after(port_.now_ns(), timeout_ns);
  call.timeout_ns = timeout_ns;
  const Status sent = send_call_request(call.id, replica, text, arguments, /*in_place_allowed=*/false);
  if (!sent.is_ok()) {
    cancel_call(call);
    return sent;
  }
  call.detached = true;
  return Status::ok();
}

Status Endpoint::settle(PendingCall& call) {
  call.detached = false;
  const Status outcome = wait_for_reply(call, call.deadline_ns, call.timeout_ns);
  if (outcome.is_ok()) return outcome;
  return Status::error(outcome.code(), "host call {} '{}' (sent without waiting for it): {}", call.id, call.function,
                       outcome.message());
}

namespace {

// The in-flight detached call of `slots` sent first (ids grow) among those `wanted` accepts, or nullptr.
template <class Slots, class Wanted>
auto* oldest_detached(Slots& slots, Wanted wanted) {
  decltype(&slots[0]) oldest = nullptr;
  for (auto& call : slots)
    if (call.detached && wanted(call) && (oldest == nullptr || call.id < oldest->id)) oldest = &call;
  return oldest;
}

}  // namespace

Status Endpoint::settle_detached_call() {
  const unsigned core = port_.core();
  if (core >= kMaxLinkCores) return Status::ok();
  Status first_error;
  auto any = [](PendingCall&) { return true; };
  while (PendingCall* call = oldest_detached(detached_[core], any)) {
    const Status outcome = settle(*call);
    if (first_error.is_ok()) first_error = outcome;
  }
  return first_error;
}

Result<Endpoint::PendingCall*> Endpoint::detached_slot(unsigned core) {
  auto done = [](PendingCall& call) {
    return call.state.load(MemoryOrder::kAcquire) == static_cast<uint32_t>(CallState::kDone);
  };
  while (PendingCall* answered = oldest_detached(detached_[core], done)) RT_RETURN_IF_ERROR(settle(*answered));
  for (PendingCall& call : detached_[core])
    if (!call.detached) return &call;
  PendingCall* oldest = oldest_detached(detached_[core], [](PendingCall&) { return true; });
  RT_RETURN_IF_ERROR(settle(*oldest));
  return oldest;
}

// ---------------------------------------------------------------- outfeed

Status Endpoint::outfeed(uint16_t queue, Span<const Tensor> tuple, uint64_t timeout_ns) {
  if (tuple.empty() || tuple.size() > 255)
    return invalid_argument("an outfeed tuple has 1..255 tensors, got {}", tuple.size());
  if (outfeed_in_place_possible(tuple)) return outfeed_in_place(queue, tuple, timeout_ns);
  FixedString<64> purpose;
  format_to(purpose, "send outfeed queue {}", queue);
  RT_RETURN_IF_ERROR(wait_for_host(timeout_ns, purpose.view()));
  Span<uint8_t> payload(buffers_[port_.core()].payload, kMaxPayload);
  QueueData data;
  data.queue = queue;
  data.element_count = static_cast<uint8_t>(tuple.size());
  for (size_t i = 0; i < tuple.size(); ++i) {
    const Tensor& tensor = tuple[i];
    if (!tensor.is_contiguous()) return invalid_argument("outfeed tensors must be contiguous (element {})", i);
    Result<uint64_t> total = tensor_byte_size(tensor.dtype, tensor.shape);
    if (!total) return total.status();
    data.element_index = static_cast<uint8_t>(i);
    data.chunk.dtype = tensor.dtype;
    data.chunk.shape = tensor.shape;
    const uint16_t channel = static_cast<uint16_t>(port_.core());
    RT_RETURN_IF_ERROR(
        for_each_chunk(Span<const uint8_t>(tensor.data, *total), max_chunk_data(data), data.chunk, [&]() -> Status {
          Result<size_t> encoded = encode_queue_data(data, payload);
          if (!encoded) return encoded.status();
          return send_frame(MessageKind::kOutfeedData, channel, payload.subspan(0, *encoded));
        }));
  }
  return Status::ok();
}

// In place pays from kOutfeedInPlaceMinBytes on: it makes the outfeed wait for the host's reply,
// while a small tuple in frames is sent and forgotten.
bool Endpoint::outfeed_in_place_possible(Span<const Tensor> tuple) {
  if (transport_ == nullptr) return false;
  uint64_t bytes = 0;
  for (const Tensor& tensor : tuple) {
    if (!transport_->readable_in_place(tensor_memory(tensor))) return false;
    bytes += tensor_byte_size(tensor.dtype, tensor.shape).value();
  }
  return bytes >= kOutfeedInPlaceMinBytes;
}

// The host reads the tuple where it is and acknowledges (message.hpp, "Outfeed in place").
Status Endpoint::outfeed_in_place(uint16_t queue, Span<const Tensor> tuple, uint64_t timeout_ns) {
  FixedString<8> queue_text;
  format_to(queue_text, "{}", queue);
  const Status status = host_call(kOutfeedFunction, queue_text.view(), tuple, {}, timeout_ns);
  if (status.is_ok()) return status;
  return Status::error(status.code(), "outfeed queue {}: {}", queue, status.message());
}

EndpointCounters Endpoint::counters() const {
  EndpointCounters counters = counters_;
  counters.decoder = transport_ != nullptr ? transport_->counters() : decoder_.counters();
  return counters;
}

Status Endpoint::link_failure() {
  if (transport_ == nullptr || !transport_->failed()) return Status::ok();
  const Status failure = transport_->failure();
  return Status::error(failure.code(), "core {}: the host link failed: {}", port_.core(), failure.message());
}

}  // namespace rt::link
