// The infeed part of the board's link endpoint (endpoint.hpp; the buffer's design is in
// infeed_buffer.hpp): attaching buffers, routing kInfeedData frames into them, granting credits and
// waiting for a tuple.
#include "endpoint.hpp"
#include "runtime/trace/core_status.hpp"

namespace rt::link {
namespace {

constexpr uint64_t kNanosPerMilli = 1000000;

uint64_t deadline_after(uint64_t now, uint64_t timeout_ns) { return timeout_ns > ~0ull - now ? ~0ull : now + timeout_ns; }

}  // namespace

InfeedBuffer* Endpoint::infeed_buffer(uint16_t queue) const {
  for (InfeedBuffer* buffer : infeed_)
    if (buffer != nullptr && buffer->queue() == queue) return buffer;
  return nullptr;
}

Status Endpoint::attach_infeed(InfeedBuffer& buffer) {
  lock_receive();
  Status status = Status::error(StatusCode::kResourceExhausted, "the link endpoint serves at most {} infeed queues at once",
                                kMaxInfeedQueues);
  InfeedBuffer* existing = infeed_buffer(buffer.queue());
  if (existing != nullptr && existing != &buffer) {
    status = Status::error(StatusCode::kFailedPrecondition, "link queue {} is already attached to infeed queue '{}'",
                           buffer.queue(), existing->name());
  } else if (existing == &buffer) {
    status = Status::ok();
  } else {
    for (InfeedBuffer*& slot : infeed_)
      if (slot == nullptr) {
        slot = &buffer;
        status = Status::ok();
        break;
      }
  }
  unlock_receive();
  if (!status.is_ok()) return status;
  if (transport_ != nullptr) transport_->publish_infeed(buffer.slot_memory());  // before any credit
  const Status granted = grant_infeed_credits(buffer, CreditGrant::kNow);
  if (!granted.is_ok()) detach_infeed(buffer);  // a caller that failed to open must not stay attached
  return granted;
}

void Endpoint::detach_infeed(InfeedBuffer& buffer) {
  if (transport_ != nullptr) transport_->withdraw_infeed(buffer.queue());
  lock_receive();
  for (InfeedBuffer*& slot : infeed_)
    if (slot == &buffer) slot = nullptr;
  unlock_receive();
  (void)grant_infeed_credits(buffer, CreditGrant::kClosing);  // a broken link says so elsewhere
}

Status Endpoint::grant_infeed_credits(InfeedBuffer& buffer, CreditGrant when) {
  if (!host_connected()) return Status::ok();
  InfeedCredits credits = buffer.credits();
  if (when == CreditGrant::kBatched && !buffer.credits_worth_sending(credits.granted_tuples)) return Status::ok();
  const bool always = when == CreditGrant::kRefresh || when == CreditGrant::kClosing;
  if (!buffer.claim_credits(credits.granted_tuples) && !always) return Status::ok();
  credits.closed = when == CreditGrant::kClosing ? 1 : 0;
  Span<uint8_t> payload(buffers_[port_.core()].payload, kMaxPayload);
  Result<size_t> size = encode_infeed_credits(credits, payload);
  if (!size) return size.status();
  RT_RETURN_IF_ERROR(send_frame(MessageKind::kInfeedCredits, 0, payload.subspan(0, *size)));
  port_.host_has_work();
  return Status::ok();
}

InfeedBuffer* Endpoint::receiving_infeed(const FrameView& frame, uint16_t queue) {
  if (frame.header.channel != 0) {
    FixedString<96> message;
    format_to(message, "infeed data goes to channel 0 (the pod), not channel {}", frame.header.channel);
    send_error(StatusCode::kInvalidArgument, frame, message.view());
    return nullptr;
  }
  InfeedBuffer* buffer = infeed_buffer(queue);
  if (buffer == nullptr) {
    FixedString<96> message;
    format_to(message, "infeed queue {} is not open on the board (no credits were granted for it)", queue);
    send_error(StatusCode::kFailedPrecondition, frame, message.view());
    return nullptr;
  }
  if (buffer->failed()) {
    ++counters_.infeed_dropped;  // its failure was reported with the first bad frame
    return nullptr;
  }
  return buffer;
}

void Endpoint::on_infeed(const FrameView& frame) {
  Result<QueueData> data = parse_queue_data(frame.payload);
  if (!data) return send_error(data.status().code(), frame, data.status().message());
  InfeedBuffer* buffer = receiving_infeed(frame, data->queue);
  if (buffer == nullptr) return;
  const uint64_t complete = buffer->complete_tuples();
  const Status accepted = buffer->accept(*data);
  if (!accepted.is_ok()) {
    send_error(accepted.code(), frame, accepted.message());
    port_.wake_all();  // waiting replicas return the failure
    return;
  }
  if (buffer->complete_tuples() != complete) port_.wake_all();
}

// A tuple the host wrote straight into its slot (publish_infeed above): checked and completed.
void Endpoint::on_infeed_in_place(const FrameView& frame) {
  Result<InfeedInPlace> placed = parse_infeed_in_place(frame.payload);
  if (!placed) return send_error(placed.status().code(), frame, placed.status().message());
  InfeedBuffer* buffer = receiving_infeed(frame, placed->queue);
  if (buffer == nullptr) return;
  const Status accepted = buffer->accept_in_place(placed->tuple);
  if (!accepted.is_ok()) send_error(accepted.code(), frame, accepted.message());
  port_.wake_all();  // waiting replicas take the tuple, or the failure
}

// What the host's file holds, before it places the first tuple in memory: checked like a chunk's.
void Endpoint::on_infeed_spec(const FrameView& frame) {
  Result<InfeedSpec> spec = parse_infeed_spec(frame.payload);
  if (!spec) return send_error(spec.status().code(), frame, spec.status().message());
  InfeedBuffer* buffer = receiving_infeed(frame, spec->queue);
  if (buffer == nullptr) return;
  const Status accepted = buffer->accept_spec(*spec);
  if (accepted.is_ok()) return;
  send_error(accepted.code(), frame, accepted.message());
  port_.wake_all();  // waiting replicas return the failure
}

Status Endpoint::wait_for_infeed(InfeedBuffer& buffer, uint64_t tuple, uint64_t timeout_ns) {
  const uint64_t deadline = deadline_after(port_.now_ns(), timeout_ns);
  trace::WaitMark wait;  // in the core's status record once the tuple is not there at once
  for (;;) {
    const size_t received = poll();
    if (buffer.failed()) return buffer.failure();
    if (buffer.complete_tuples() > tuple) return Status::ok();
    RT_RETURN_IF_ERROR(link_failure());
    if (!wait.marked()) {  // the tuple is not there: the credits held back for batching go out now
      wait.mark(port_.core(), trace::infeed_activity(buffer.queue(), tuple, buffer.name()));
      RT_RETURN_IF_ERROR(grant_infeed_credits(buffer, CreditGrant::kNow));
    }
    const uint64_t now = port_.now_ns();
    if (now >= deadline) {
      wait.gave_up();
      return deadline_exceeded(
          "core {} timed out after {} ms waiting for tuple {} of infeed queue '{}' (link queue {}): {} tuples and {} "
          "bytes of the next arrived{}",
          port_.core(), timeout_ns / kNanosPerMilli, tuple, buffer.name(), buffer.queue(), buffer.complete_tuples(),
          buffer.partial_bytes(),
          host_connected() ? StringView(" (is `tpu run --infeed` feeding this queue?)")
                           : StringView(" (no host on the link: run the app with `tpu run --infeed`)"));
    }
    if (host_connected() && buffer.claim_refresh(now, kInfeedCreditRefreshNs))
      (void)grant_infeed_credits(buffer, CreditGrant::kRefresh);
    if (received == 0) port_.idle();
  }
}

}  // namespace rt::link
