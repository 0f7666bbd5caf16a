// The board's shared-memory link transport (shm_transport.hpp).
#include "shm_transport.hpp"

#include "runtime/link/protocol/tensor_chunk.hpp"

namespace rt::link {

ShmTransport::ShmTransport(uint8_t* window, ShmClock& clock)
    : control_(reinterpret_cast<ShmControl*>(window)), clock_(clock) {
  to_host_.attach(window, control_->to_host);
  to_board_.attach(window, control_->to_board);
}

void ShmTransport::fail(const Status& reason) {
  uint32_t expected = 0;
  if (!failed_.compare_exchange(expected, 1, MemoryOrder::kAcqRel)) return;  // the first reason stays
  failure_ = reason;
  failed_.store(2, MemoryOrder::kRelease);  // failure_ is complete
}

bool ShmTransport::failed() {
  if (failed_.load(MemoryOrder::kAcquire) != 0) return true;
  if (shm_host_state(*control_) == ShmHostState::kClosed)
    fail(Status::error(StatusCode::kUnavailable, "the host closed the shared-memory link (tpu stopped serving it)"));
  return failed_.load(MemoryOrder::kAcquire) != 0;
}

Status ShmTransport::failure() {
  if (!failed()) return Status::ok();
  while (failed_.load(MemoryOrder::kAcquire) != 2) {}  // the core that won fail() is still writing failure_
  return failure_;
}

Status ShmTransport::send(const FrameHeader& header, Span<const uint8_t> payload) {
  if (failed()) return failure();
  uint8_t head[kFrameHeaderBytes];
  uint8_t tail[kFrameCrcBytes];
  RT_RETURN_IF_ERROR(frame_body_parts(header, payload, head, tail));
  const uint64_t body = kFrameHeaderBytes + payload.size() + kFrameCrcBytes;
  const uint64_t start = clock_.now_ns();
  for (;;) {
    Result<bool> room = to_host_.has_room(body);
    if (!room) {
      fail(room.status());
      return failure();
    }
    if (*room) break;
    if (failed()) return failure();
    if (clock_.now_ns() - start >= kShmRoomTimeoutNs)
      return deadline_exceeded("core {} waited {} ms for room in the shared-memory link to the host (is tpu still reading?)",
                               clock_.core(), kShmRoomTimeoutNs / 1000000);
    clock_.idle();
  }
  to_host_.write(head, payload, tail);
  return Status::ok();
}

void ShmTransport::announce_memory(const uint8_t* aperture, size_t aperture_bytes) {
  control_->window_address = reinterpret_cast<uintptr_t>(control_);
  control_->aperture_address = reinterpret_cast<uintptr_t>(aperture);
  control_->aperture_bytes = aperture_bytes;
}

void ShmTransport::announce_core_status(const void* table, size_t table_bytes) {
  control_->core_status_address = reinterpret_cast<uintptr_t>(table);
  control_->core_status_bytes = table_bytes;
}

bool ShmTransport::arm_reply_targets(unsigned core, uint32_t call_id, Span<const HostResult> results) {
  if (core >= kShmMaxCores || results.empty() || results.size() > kShmMaxTargets || failed()) return false;
  ShmReplyTarget& target = control_->targets[core];
  if (shm_target_state(target) != ShmTargetState::kIdle) return false;  // the last call's host is still writing
  target.call_id = call_id;
  target.count = static_cast<uint32_t>(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    const bool placeable = !results[i].is_text() && results[i].tensor_destination().is_contiguous();
    const Tensor& tensor = results[i].tensor_destination();
    const Result<uint64_t> bytes = placeable ? tensor_byte_size(tensor.dtype, tensor.shape) : Result<uint64_t>(0);
    target.address[i] = placeable && bytes ? reinterpret_cast<uintptr_t>(tensor.data) : 0;
    target.bytes[i] = placeable && bytes ? *bytes : 0;
  }
  set_shm_target_state(target, ShmTargetState::kArmed);  // release: the fields above first
  return true;
}

bool ShmTransport::reply_target_armed(unsigned core, uint32_t call_id, unsigned index) const {
  if (core >= kShmMaxCores) return false;
  const ShmReplyTarget& target = control_->targets[core];
  const ShmTargetState state = shm_target_state(target);
  return (state == ShmTargetState::kWritten || state == ShmTargetState::kWriting) && target.call_id == call_id &&
         index < target.count && target.address[index] != 0;
}

void ShmTransport::disarm_reply_targets(unsigned core) {
  if (core >= kShmMaxCores) return;
  ShmReplyTarget& target = control_->targets[core];
  if (move_shm_target_state(target, ShmTargetState::kArmed, ShmTargetState::kIdle)) return;
  const uint64_t start = clock_.now_ns();
  while (shm_target_state(target) == ShmTargetState::kWriting && clock_.now_ns() - start < kShmHostWritingTimeoutNs)
    clock_.idle();  // the host is copying into the caller's buffers: they must not be reused yet
  set_shm_target_state(target, ShmTargetState::kIdle);
}

bool ShmTransport::readable_in_place(const Tensor& tensor) const {
  if (!tensor.is_contiguous()) return false;
  const Result<uint64_t> bytes = tensor_byte_size(tensor.dtype, tensor.shape);
  const uint64_t address = reinterpret_cast<uintptr_t>(tensor.data);
  const uint64_t aperture = control_->aperture_address;
  return bytes && address >= aperture && *bytes <= control_->aperture_bytes &&
         address - aperture <= control_->aperture_bytes - *bytes;
}

void ShmTransport::publish_infeed(const InfeedBuffer& buffer) {
  if (buffer.element_count() > kShmMaxInfeedElements) return;  // too many elements: frames carry them
  withdraw_infeed(buffer.queue());
  for (ShmInfeedTarget& target : control_->infeed) {
    if (__atomic_load_n(&target.state, __ATOMIC_ACQUIRE) != 0) continue;
    target.queue = buffer.queue();
    target.element_count = static_cast<uint8_t>(buffer.element_count());
    target.slots = buffer.slots();
    target.storage_address = reinterpret_cast<uintptr_t>(buffer.storage());
    target.slot_bytes = buffer.slot_bytes();
    for (unsigned e = 0; e < buffer.element_count(); ++e) {
      target.element_offset[e] = buffer.element_offset(e);
      target.element_bytes[e] = buffer.element_bytes(e);
    }
    __atomic_store_n(&target.state, 1u, __ATOMIC_RELEASE);  // the fields above first
    return;
  }
}

void ShmTransport::withdraw_infeed(uint16_t queue) {
  for (ShmInfeedTarget& target : control_->infeed)
    if (__atomic_load_n(&target.state, __ATOMIC_ACQUIRE) != 0 && target.queue == queue)
      __atomic_store_n(&target.state, 0u, __ATOMIC_RELEASE);
}

size_t ShmTransport::max_receive_payload() const {
  const uint64_t ring = shm_max_body(control_->to_board.capacity) - kFrameHeaderBytes - kFrameCrcBytes;
  return ring < kMaxRecordPayload ? ring : kMaxRecordPayload;
}

size_t ShmTransport::receive(FrameSink& sink, size_t max_frames) {
  size_t taken = 0;
  while (taken < max_frames && failed_.load(MemoryOrder::kAcquire) == 0) {
    Result<Span<const uint8_t>> body = to_board_.peek();
    if (!body) {
      fail(body.status());
      break;
    }
    if (body->data() == nullptr) break;  // nothing published
    const FrameCheck check = check_frame(*body, max_receive_payload());
    if (check.error != FrameError::kNone) {
      counters_.count(check.error);
      fail(Status::error(StatusCode::kAborted, "shared-memory link: a frame from the host failed its check ({}, {} bytes)",
                         frame_error_name(check.error), body->size()));
      sink.on_bad_frame(check.error);
      break;
    }
    ++counters_.frames_ok;
    frames_received_.store(counters_.frames_ok, MemoryOrder::kRelaxed);
    sink.on_frame(check.frame);
    to_board_.release();
    ++taken;
  }
  return taken;
}

}  // namespace rt::link
