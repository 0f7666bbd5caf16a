// A launched board whose link frames travel through shared memory (shm_link.hpp) while its console
// text keeps the byte stream: wraps the board's process channel and the ShmLink, and waits on both
// with an adaptive poll. The poll spins for the first kSpinFor after any activity (a host-call reply
// is answered within microseconds), then sleeps, doubling from kFirstSleep to kLongestSleep, so an
// idle board costs this tool almost nothing; a board core that starts waiting for tpu rings tpu's
// doorbell, which ends such a sleep at once (runtime/link/transport/shm_ring.hpp, "Waking").
// Spinning pays only where a CPU is free for it: on a machine whose CPUs the board's cores take
// all, every microsecond tpu spins is taken from a core (and its peers then wait for it in their
// collectives), so there tpu only sleeps (set_spin(false)). There every wake-up of tpu also takes
// a core's CPU (the scheduler preempts the core for it), so a board that can ring tpu (the host
// board: a futex on the window) rings it when a core starts waiting for tpu and for each batch of
// infeed credits, and tpu's sleeps start at kLongestSleep instead of polling from kFirstSleep; what
// does not ring (a report sent without waiting, outfeed, console text, the board's end) is taken
// within kLongestSleep. A 2-core digits MLP on 2 CPUs woke tpu ~1,400 times in 0.25 s by its short
// polls, each one preempting a core mid-step (and its peer then waiting in the step's all-reduce);
// ~440 with this. A caller that asks to look again sooner (a pod's exchange in flight, which no ring
// announces) and a QEMU board, which cannot ring (its rings only move the count), keep the polls
// from kFirstSleep.
#pragma once
#include <memory>

#include "board_channel.hpp"
#include "shm_link.hpp"

namespace tpu {

class ShmBoardChannel final : public BoardChannel {
 public:
  static constexpr std::chrono::microseconds kSpinFor{50};
  static constexpr std::chrono::microseconds kFirstSleep{10};
  static constexpr std::chrono::microseconds kLongestSleep{2000};

  // `board_rings_tpu`: the board wakes tpu's sleep on the window's doorbell (a host-board process).
  ShmBoardChannel(std::unique_ptr<BoardChannel> process, std::unique_ptr<ShmLink> link, bool board_rings_tpu)
      : process_(std::move(process)), link_(std::move(link)), board_rings_tpu_(board_rings_tpu) {}
  ~ShmBoardChannel() override;

  void send(std::span<const uint8_t> bytes) override { process_->send(bytes); }
  bool pump(std::chrono::milliseconds timeout, std::vector<uint8_t>& out) override;
  std::optional<int> wait_for_exit(std::chrono::milliseconds timeout) override;
  void kill() override;
  bool launched() const override { return process_->launched(); }
  std::string name() const override { return process_->name(); }

  void set_spin(bool spin) override { spin_ = spin; }
  bool send_frame(const rt::link::FrameHeader& header, rt::Span<const uint8_t> payload) override;
  void set_frame_receiver(FrameReceiver receiver) override { receiver_ = std::move(receiver); }
  std::optional<std::string> link_failure() const override { return link_->failure(); }
  std::string transport() const override { return "shm"; }
  std::string transport_summary() const override;
  size_t max_frame_payload() const override { return rt::link::kMaxRecordPayload; }
  std::optional<std::vector<uint8_t>> read_board_memory(uint64_t address, uint64_t bytes) override {
    return link_->read_board_memory(address, bytes);
  }
  std::optional<std::span<const uint8_t>> view_board_memory(uint64_t address, uint64_t bytes) override {
    return link_->view_board_memory(address, bytes);
  }
  std::map<unsigned, uint64_t> core_program_counters(const std::vector<unsigned>& cores) override {
    return process_->core_program_counters(cores);
  }
  std::optional<CoreStatusPlace> core_status_place() const override {
    const auto place = link_->core_status_place();
    return place ? std::optional<CoreStatusPlace>(CoreStatusPlace{place->first, place->second}) : std::nullopt;
  }
  // Outside the RAM file, a host board's memory is its process's (read for hang triage).
  std::optional<std::vector<uint8_t>> read_board_ram(uint64_t address, uint64_t bytes) const override {
    std::optional<std::vector<uint8_t>> copy = link_->read_board_ram(address, bytes);
    if (!copy && link_->memory_is_process() && bytes <= ShmLink::kMaxRamRead)
      copy = process_->read_process_memory(address, bytes);
    return copy;
  }
  bool place_infeed_tuple(uint16_t queue, uint64_t tuple, const std::vector<uint64_t>& element_bytes,
                          const FillElement& fill) override {
    return link_->place_infeed_tuple(queue, tuple, element_bytes, fill);
  }
  std::vector<bool> place_results(unsigned core, uint32_t id, const std::vector<size_t>& sizes,
                                  const ResultWriter& write) override {
    return link_->place_results(core, id, sizes, write);
  }
  uint8_t* claim_result(unsigned core, uint32_t id, size_t bytes) override { return link_->claim_result(core, id, bytes); }
  void release_result(unsigned core, uint32_t id) override { link_->release_result(core, id); }

 private:
  size_t exchange();  // frames both ways; returns how many moved

  std::unique_ptr<BoardChannel> process_;
  std::unique_ptr<ShmLink> link_;
  FrameReceiver receiver_;
  std::chrono::steady_clock::time_point last_activity_ = std::chrono::steady_clock::now();
  bool spin_ = true;
  bool board_rings_tpu_ = false;
};

}  // namespace tpu
