// A host link that carries whole frames instead of a byte stream (the shared-memory rings,
// shm_transport.hpp). A LinkPort that has one hands it to the endpoint (LinkPort::frame_transport),
// which then sends frames through it and takes checked frames from it: no COBS, no decoder, no
// console text in between (the console keeps its UART).
#pragma once
#include "decoder.hpp"
#include "placement.hpp"

namespace rt::link {

class FrameTransport {
 public:
  // Sends one frame (the caller holds the port's output lock). May wait, bounded, for room.
  virtual Status send(const FrameHeader& header, Span<const uint8_t> payload) = 0;
  // Hands up to `max_frames` received frames to `sink`, each checked (CRC, header) and valid only
  // during the call; returns how many it took. A bad frame ends the link (failed() from then on).
  virtual size_t receive(FrameSink& sink, size_t max_frames) = 0;
  // True once the link cannot be used any more (a corrupt ring, the host closed it); failure() says why.
  virtual bool failed() = 0;
  virtual Status failure() = 0;
  virtual DecoderCounters counters() const = 0;
  // The largest frame payload it receives (the board's hello announces it; the byte stream's is kMaxPayload).
  virtual size_t max_receive_payload() const = 0;

  // Host-call results placed straight into their destinations (shared memory: shm_ring.hpp,
  // "Results in place"). Before the request goes out, the calling core arms its targets (true if it
  // did); a kHostCallReplyInPlace frame is accepted only for a result whose target was armed; when
  // the call ends, done or not, the core disarms them (waiting for a host that is writing).
  virtual bool arm_reply_targets(unsigned core, uint32_t call_id, const ReplyTargets& results) {
    (void)core, (void)call_id, (void)results;
    return false;
  }
  virtual bool reply_target_armed(unsigned core, uint32_t call_id, unsigned index) const {
    (void)core, (void)call_id, (void)index;
    return false;
  }
  virtual void disarm_reply_targets(unsigned core) { (void)core; }

  // Host-call arguments the host reads straight from board memory (shared memory): true if the
  // host can read `bytes` where they are (inside the memory announced to the host).
  virtual bool readable_in_place(MemoryRange bytes) const {
    (void)bytes;
    return false;
  }

  // Infeed tuples written straight into their slots (shm_ring.hpp, "Infeed in place"): an attached
  // buffer's slot memory is published for the host, and withdrawn before the buffer goes away.
  virtual void publish_infeed(const InfeedSlotMemory& memory) { (void)memory; }
  virtual void withdraw_infeed(uint16_t queue) { (void)queue; }

 protected:
  ~FrameTransport() = default;
};

}  // namespace rt::link
