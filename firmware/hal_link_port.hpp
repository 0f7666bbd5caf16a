// The board's link ports over the HAL: HalLinkPort carries the link on the board's UART byte stream
// (console lock, UART, core id, board time); ShmLinkPort carries it on the shared-memory window tpu
// set up (hal/link_window.hpp, runtime/link/transport/shm_transport.hpp) while the console keeps the UART.
//
// Waiting. Nothing interrupts a core when host bytes arrive (in the UART or in memory), so a waiting
// core polls with growing sleeps (the board's timer-bounded doorbell wait: WFI until the timer or a
// doorbell): a few microseconds of spinning first (a reply that comes at once is seen at once), then
// sleeps of a quarter of the time waited so far, from kFirstSleepNs up to kLongestSleepNs (so a
// reply is seen at most ~25% later than it came, with few wake-ups however long the wait). A wait starts over (spinning) whenever the
// link moved something since the last pause, so back-to-back host calls never inherit a long sleep. Under QEMU this matters twice: a spinning
// vCPU (WFE is only a yield in TCG) takes host CPU from the vCPUs doing work and from QEMU's I/O
// thread that feeds the UART, and a long idle should cost next to nothing. Where the host shares
// the board's CPUs (hal::link_host_shares_cpus) there is no spinning at all: the CPU goes to the host.
// On the host board's shared-memory link the sleeps are on the window's doorbell instead (a shared
// futex), which everything a core waits for rings (tpu's frames, a peer's wake_all()), so a reply
// ends them at once and a core sleeps, without timed wake-ups, until it does.
// The other way, a wait's first sleep rings tpu's doorbell, so a tpu asleep between its polls takes
// the request the core waits on at once.
#pragma once
#include "hal/console.hpp"
#include "hal/core.hpp"
#include "runtime/link/protocol/message_kind.hpp"
#include "runtime/link/transport/link_port.hpp"
#include "runtime/link/transport/shm_transport.hpp"

namespace firmware {

// The output lock is the console lock (re-entrant, per core), so frames and log lines never interleave.
class HalLinkPort : public rt::link::LinkPort {
 public:
  static constexpr uint64_t kSpinNs = 100000;
  static constexpr uint64_t kFirstSleepNs = 5000;
  static constexpr uint64_t kLongestSleepNs = 500000;

  void lock_output() override;
  void unlock_output() override;
  void write(rt::Span<const uint8_t> bytes) override;
  int read_byte() override;
  unsigned core() override;
  uint64_t now_ns() override;
  void idle() override;
  void wake_all() override;
  // Bytes read from the link so far (a host that began to speak: link_service's host_expected).
  uint64_t bytes_read() const { return bytes_read_.load(rt::MemoryOrder::kRelaxed); }

 protected:
  // Counts what the link received (bytes, frames): a change means the link is busy.
  virtual uint64_t activity() { return bytes_read(); }
  // idle()'s sleep: the core's doorbell wait until the deadline; `first_sleep`: the wait's first.
  virtual void sleep_until(uint64_t deadline_ns, bool first_sleep);

 private:
  struct alignas(hal::ConsoleLock) LockStorage {
    unsigned char bytes[sizeof(hal::ConsoleLock)];
  };
  struct alignas(64) WaitState {
    uint64_t last_idle_ns = 0;
    uint64_t wait_start_ns = 0;
    uint64_t sleep_ns = 0;
    uint64_t activity = 0;
  };
  rt::Atomic<uint64_t> bytes_read_{0};  // written under the endpoint's receive lock
  LockStorage locks_[hal::kMaxCores];
  WaitState waits_[hal::kMaxCores];
};

class ShmLinkPort final : public HalLinkPort, private rt::link::ShmClock {
 public:
  explicit ShmLinkPort(uint8_t* window) : transport_(window, *this, rt::link::kMessageKinds) {}
  void idle() override { HalLinkPort::idle(); }
  void wake_all() override;
  void host_has_work() override;
  rt::link::FrameTransport* frame_transport() override { return &transport_; }
  rt::link::ShmTransport& transport() { return transport_; }

 private:
  uint64_t activity() override { return transport_.frames_received(); }
  // Where the host can wake the board (hal::link_wakeable), idle() sleeps on the window's doorbell
  // until it rings: the host's next frame or placed result, or a peer's wake_all(), ends the sleep at
  // once. A wait's first sleep rings the host's doorbell first (the core now waits for the host).
  void sleep_until(uint64_t deadline_ns, bool first_sleep) override;
  uint64_t now_ns() override { return HalLinkPort::now_ns(); }
  unsigned core() override { return HalLinkPort::core(); }
  void sleep(const uint32_t* word, uint32_t seen, uint64_t deadline_ns) override;
  void wake(const uint32_t* word) override;

  rt::link::ShmTransport transport_;
  uint32_t seen_rings_[hal::kMaxCores] = {};  // each core's view of the host's rings at its last sleep
};

}  // namespace firmware
