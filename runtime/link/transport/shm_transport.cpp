// The board's shared-memory link transport (shm_transport.hpp).
#include "shm_transport.hpp"

namespace rt::link {

ShmTransport::ShmTransport(uint8_t* window, ShmClock& clock, FrameKinds kinds)
    : control_(reinterpret_cast<ShmControl*>(window)), clock_(clock), kinds_(kinds) {
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
  // The core that won fail() is still writing failure_ (a few stores; a preempted host-board thread
  // may take a time slice): pause rather than spin on its CPU.
  while (failed_.load(MemoryOrder::kAcquire) != 2) clock_.idle();
  return failure_;
}

Status ShmTransport::send(const FrameHeader& header, Span<const uint8_t> payload) {
  if (failed()) return failure();
  uint8_t head[kFrameHeaderBytes];
  uint8_t tail[kFrameCrcBytes];
  RT_RETURN_IF_ERROR(frame_body_parts(header, payload, head, tail, kMaxPayload, kinds_));
  const uint64_t body = kFrameHeaderBytes + payload.size() + kFrameCrcBytes;
  RT_RETURN_IF_ERROR(wait_for_room(body));
  to_host_.write(head, payload, tail);
  return Status::ok();
}

// Counted as a room waiter from the first full look on (shm_ring.hpp, "Waking"): the host rings the
// board's bell after taking records only for counted cores.
Status ShmTransport::wait_for_room(uint64_t body) {
  const uint64_t start = clock_.now_ns();
  bool counted = false;
  Status outcome = Status::ok();
  for (;;) {
    Result<bool> room = to_host_.has_room(body);
    if (!room) {
      fail(room.status());
      outcome = failure();
      break;
    }
    if (*room) break;
    if (!counted) {  // counted before the next look, so a release after it rings
      begin_room_wait(*control_);
      counted = true;
      continue;
    }
    if (failed()) {
      outcome = failure();
      break;
    }
    if (clock_.now_ns() - start >= kShmRoomTimeoutNs) {
      outcome = deadline_exceeded(
          "core {} waited {} ms for room in the shared-memory link to the host (is tpu still reading?)", clock_.core(),
          kShmRoomTimeoutNs / 1000000);
      break;
    }
    clock_.idle();
  }
  if (counted) end_room_wait(*control_);
  return outcome;
}

void ShmTransport::sleep_until_host_rings(uint32_t seen, uint64_t deadline_ns) {
  sleep_on_shm_doorbell(control_->board_bell, seen,
                        [this, deadline_ns](const uint32_t* word, uint32_t value) { clock_.sleep(word, value, deadline_ns); });
}

void ShmTransport::ring_host() {
  if (ring_shm_doorbell(control_->host_bell)) clock_.wake(&control_->host_bell.rings);
}

void ShmTransport::ring_board() {
  if (ring_shm_doorbell(control_->board_bell)) clock_.wake(&control_->board_bell.rings);
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

bool ShmTransport::arm_reply_targets(unsigned core, uint32_t call_id, const ReplyTargets& results) {
  const size_t count = results.count();
  if (core >= kShmMaxCores || count == 0 || count > kShmMaxTargets || failed()) return false;
  ShmReplyTarget& target = control_->targets[core];
  if (shm_target_state(target) != ShmTargetState::kIdle) return false;  // the last call's host is still writing
  target.call_id = call_id;
  target.count = static_cast<uint32_t>(count);
  for (size_t i = 0; i < count; ++i) {
    const MemoryRange range = results.target(i);
    target.address[i] = range.empty() ? 0 : reinterpret_cast<uintptr_t>(range.data);
    target.bytes[i] = range.empty() ? 0 : range.bytes;
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
  // The host may write, give the target back (kArmed) and claim it again (a pod's collective claims
  // its output, releases it, then places the result): only an armed target taken here, or a written
  // one, is the caller's again.
  const uint64_t start = clock_.now_ns();
  for (;;) {
    if (move_shm_target_state(target, ShmTargetState::kArmed, ShmTargetState::kIdle)) return;
    const ShmTargetState state = shm_target_state(target);
    if (state == ShmTargetState::kWritten || state == ShmTargetState::kIdle ||
        clock_.now_ns() - start >= kShmHostWritingTimeoutNs)
      break;
    if (state == ShmTargetState::kWriting) clock_.idle();  // the host is copying into the caller's buffers
  }
  set_shm_target_state(target, ShmTargetState::kIdle);
}

bool ShmTransport::readable_in_place(MemoryRange bytes) const {
  if (bytes.empty()) return false;
  const uint64_t address = reinterpret_cast<uintptr_t>(bytes.data);
  const uint64_t aperture = control_->aperture_address;
  return address >= aperture && bytes.bytes <= control_->aperture_bytes &&
         address - aperture <= control_->aperture_bytes - bytes.bytes;
}

void ShmTransport::publish_infeed(const InfeedSlotMemory& memory) {
  const size_t elements = memory.element_offsets.size();
  if (elements > kShmMaxInfeedElements || memory.element_bytes.size() != elements) return;  // frames carry them
  withdraw_infeed(memory.queue);
  for (ShmInfeedTarget& target : control_->infeed) {
    if (__atomic_load_n(&target.state, __ATOMIC_ACQUIRE) != 0) continue;
    target.queue = memory.queue;
    target.element_count = static_cast<uint8_t>(elements);
    target.slots = memory.slots;
    target.storage_address = reinterpret_cast<uintptr_t>(memory.storage);
    target.slot_bytes = memory.slot_bytes;
    for (size_t e = 0; e < elements; ++e) {
      target.element_offset[e] = memory.element_offsets[e];
      target.element_bytes[e] = memory.element_bytes[e];
    }
    __atomic_store_n(&target.state, 1u, __ATOMIC_RELEASE);  // the fields above first
    return;
  }
}

void ShmTransport::withdraw_infeed(uint16_t queue) {
  for (ShmInfeedTarget& target : control_->infeed) {
    if (__atomic_load_n(&target.state, __ATOMIC_ACQUIRE) == 0 || target.queue != queue) continue;
    const uint64_t start = clock_.now_ns();
    for (;;) {
      uint32_t state = 1;  // open: taken back; 0: already withdrawn; 2: the host is writing a tuple
      if (__atomic_compare_exchange_n(&target.state, &state, 0u, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
          state == 0)
        break;
      if (clock_.now_ns() - start >= kShmHostWritingTimeoutNs) {  // a host that died mid-copy
        __atomic_store_n(&target.state, 0u, __ATOMIC_RELEASE);
        break;
      }
      clock_.idle();  // the slots are still the queue's while the host writes into them
    }
  }
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
    const FrameCheck check = check_frame(*body, kinds_, max_receive_payload());
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
