// StallTimer: bounds how long an operation may go without progress, reading the clock only while
// it is stalled, so a transfer that keeps moving never pays for a clock read (21 ns on the host).
//   StallTimer stall(timeout_ns);
//   while (!done) { if (step()) { stall.progressed(); continue; } if (stall.expired()) fail; wait; }
#pragma once
#include "hal/time.hpp"

namespace rt {

class StallTimer {
 public:
  explicit StallTimer(uint64_t timeout_ns) : timeout_ns_(timeout_ns) {}

  void progressed() { deadline_ns_ = 0; }
  // Starts the clock on the first call after progress; true once timeout_ns passed without progress.
  bool expired() {
    if (deadline_ns_ == 0) {
      deadline_ns_ = hal::deadline_after(timeout_ns_);  // saturating, never 0
      return false;
    }
    return hal::time_ns() >= deadline_ns_;
  }
  uint64_t deadline_ns() const { return deadline_ns_; }  // valid after expired() was called
  uint64_t timeout_ns() const { return timeout_ns_; }

 private:
  uint64_t timeout_ns_;
  uint64_t deadline_ns_ = 0;
};

}  // namespace rt
