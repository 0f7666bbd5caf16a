// The board's end of the shared-memory host link (shm_ring.hpp): frames go to the host through the
// to-host ring and come from it through the to-board ring, read in place. HAL-free: time and the
// pause while the to-host ring is full come from a small clock interface the firmware implements.
//
// Failure is final: a record that fails its checks (a corrupt ring, a torn write, a bad CRC) or a
// host that marked the window closed ends the link; every later send or wait returns why, naming
// what was wrong, so a replica waiting for a host call fails at once instead of at its timeout.
#pragma once
#include "frame_transport.hpp"
#include "shm_ring.hpp"

namespace rt::link {

class ShmClock {
 public:
  virtual uint64_t now_ns() = 0;
  virtual void idle() = 0;  // a pause while waiting for room (may sleep briefly)
  virtual unsigned core() = 0;
  // The doorbell's sleep (shm_ring.hpp, "Waking"): while *word == seen, until deadline_ns or the
  // host's wake. A platform the host cannot wake sleeps until the deadline.
  virtual void sleep(const uint32_t* word, uint32_t seen, uint64_t deadline_ns) = 0;
  // Wakes the sleepers on a doorbell's `word` (either side's); a platform that cannot does nothing.
  virtual void wake(const uint32_t* word) = 0;

 protected:
  ~ShmClock() = default;
};

inline constexpr uint64_t kShmRoomTimeoutNs = 10ull * 1000 * 1000 * 1000;  // a host that stopped reading
inline constexpr uint64_t kShmHostWritingTimeoutNs = 5ull * 1000 * 1000 * 1000;  // a host that died mid-copy

class ShmTransport final : public FrameTransport {
 public:
  // `window` holds a control block the host set up; check it with check_shm_control first.
  // Frames of kinds outside `kinds` are refused on sending; from the host they fail the link like
  // any other bad frame.
  ShmTransport(uint8_t* window, ShmClock& clock, FrameKinds kinds);

  Status send(const FrameHeader& header, Span<const uint8_t> payload) override;
  size_t receive(FrameSink& sink, size_t max_frames) override;
  bool failed() override;
  Status failure() override;
  DecoderCounters counters() const override { return counters_; }
  // Frames received so far (any core may read it while another receives).
  uint64_t frames_received() const { return frames_received_.load(MemoryOrder::kRelaxed); }
  size_t max_receive_payload() const override;
  bool arm_reply_targets(unsigned core, uint32_t call_id, const ReplyTargets& results) override;
  bool reply_target_armed(unsigned core, uint32_t call_id, unsigned index) const override;
  void disarm_reply_targets(unsigned core) override;
  bool readable_in_place(MemoryRange bytes) const override;
  void publish_infeed(const InfeedSlotMemory& memory) override;
  void withdraw_infeed(uint16_t queue) override;

  // What the host may write results into (the board's tensor memory) and where the window is, in
  // the board's address space; written into the control block before the board says it attached.
  void announce_memory(const uint8_t* aperture, size_t aperture_bytes);
  // Where the board's per-core status table lies (runtime/trace/core_status.hpp), for the host to
  // read when the board hangs; written into the control block before the board says it attached.
  void announce_core_status(const void* table, size_t table_bytes);

  // The board's doorbell (shm_ring.hpp, "Waking"): how often it was rung so far (by the host, or by
  // a board core whose peers wait), and a sleep until it rings again after `seen` (or deadline_ns).
  uint32_t host_rings() const { return shm_doorbell_rings(control_->board_bell); }
  void sleep_until_host_rings(uint32_t seen, uint64_t deadline_ns);
  // Rings the host's doorbell: a core starts waiting for the host (once per wait; shm_ring.hpp, "Waking").
  void ring_host();
  // Rings the board's own doorbell: a core published something its peers may be asleep waiting for
  // (a reply or infeed tuple it took for them, the receive lock it let go).
  void ring_board();

  // The board's state for the host to see (attached once the endpoint uses the window, finished at the end).
  void set_board_state(ShmBoardState state) { set_shm_board_state(*control_, state); }

 private:
  void fail(const Status& reason);
  Status wait_for_room(uint64_t body);  // until the to-host ring takes a body of `body` bytes

  ShmControl* control_;
  ShmClock& clock_;
  FrameKinds kinds_;
  ShmRingWriter to_host_;
  ShmRingReader to_board_;
  DecoderCounters counters_;
  Atomic<uint64_t> frames_received_{0};
  Atomic<uint32_t> failed_{0};  // 32-bit: RV64 has no byte-wide compare-and-swap
  Status failure_;  // written once, before failed_ is set (release)
};

}  // namespace rt::link
