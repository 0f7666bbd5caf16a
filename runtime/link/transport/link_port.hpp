// What the board's link endpoint (endpoint.hpp) needs from the platform, as one small interface so
// the endpoint stays HAL-free: the firmware implements it over the HAL (firmware/link_service.cpp:
// the console lock, the UART, the core id, board time, WFE), tests implement it over memory.
#pragma once
#include "frame_transport.hpp"

namespace rt::link {

class LinkPort {
 public:
  // Output is bracketed by lock_output()/unlock_output(): everything written in between reaches the
  // wire without console text in the middle (the firmware takes the console lock).
  virtual void lock_output() = 0;
  virtual void unlock_output() = 0;
  virtual void write(Span<const uint8_t> bytes) = 0;
  // The next byte the host sent, or -1 if none is waiting. Never blocks.
  virtual int read_byte() = 0;
  // The calling core's id (0 .. cores-1).
  virtual unsigned core() = 0;
  virtual uint64_t now_ns() = 0;
  // A pause inside a wait loop: it may sleep until the host's next frame or a peer's wake_all() ends
  // it, so every change a core may wait for is followed by wake_all() (bounded: returns within a ms).
  virtual void idle() = 0;
  // Wakes cores that idle() while waiting for something another core just published.
  virtual void wake_all() = 0;
  // The core just sent the host something it should take soon though nobody waits for it yet (a
  // batch of infeed credits): a port whose host sleeps until rung, sharing the board's CPUs, rings it.
  virtual void host_has_work() {}
  // A port whose link carries whole frames (shared memory) returns its transport; the endpoint then
  // uses it instead of write()/read_byte(). Byte-stream ports (UART, pipes) return nullptr.
  virtual FrameTransport* frame_transport() { return nullptr; }

 protected:
  ~LinkPort() = default;
};

}  // namespace rt::link
