// A host link that carries whole frames instead of a byte stream (the shared-memory rings,
// shm_transport.hpp). A LinkPort that has one hands it to the endpoint (LinkPort::frame_transport),
// which then sends frames through it and takes checked frames from it: no COBS, no decoder, no
// console text in between (the console keeps its UART).
#pragma once
#include "decoder.hpp"

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

 protected:
  ~FrameTransport() = default;
};

}  // namespace rt::link
