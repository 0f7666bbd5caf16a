// The host's end of the shared-memory link (runtime/link/transport/shm_ring.hpp): the guest's RAM as a file
// in a private temporary folder that QEMU maps with share=on and this tool maps too (only the link
// window of it). Frames go to the board through the to-board ring and come back through the
// to-host ring; console text keeps the UART.
//
// Lifetime of the file: created (sparse, so a 512 MiB RAM costs only what the guest touches) with
// the control block written into the window before QEMU starts; unlinked, with its folder, as soon
// as the board says it attached (QEMU has it mapped by then, so nothing is left behind even if this
// tool is killed), and in any case when the ShmLink is destroyed (normal exit, Ctrl-C, errors). The
// folder is named tpu-link-<pid>-XXXXXX: one left by a tpu killed before its board attached is
// removed by the next tpu that makes a link (its owner is gone).
//
// The whole RAM file is mapped (address space only: pages cost nothing until touched), so host-call
// results can be placed straight into the board's memory (place_results: only inside the aperture
// the board announced, only for results whose armed target they fit exactly; shm_ring.hpp).
//
// Sending never blocks: a frame that does not fit the ring now waits in a host-side queue and goes
// out on a later flush(). Receiving copies each record out of the window before checking it, so a
// board that keeps writing cannot change a frame after its check. A corrupt ring is final:
// failure() says what was wrong, and nothing outside the window is ever read or written.
#pragma once
#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "host-tools/lib/tensors/result_writer.hpp"
#include "runtime/link/transport/frame.hpp"
#include "runtime/link/transport/shm_ring.hpp"

namespace tpu {

// Where the window lies in the board's RAM file (`make print-link-layout`).
struct ShmLayout {
  uint64_t ram_bytes = 0;
  uint64_t window_offset = 0;
  uint64_t window_bytes = 0;  // 0: the board has no window
  bool memory_is_process = false;  // the host board: memory outside the file is its process's
};

class ShmLink {
 public:
  using Receiver = std::function<void(std::span<const uint8_t> body)>;

  // Creates the RAM file and sets the window up; nothing with `error` set.
  static std::unique_ptr<ShmLink> create(const ShmLayout& layout, std::string& error);
  ShmLink(const ShmLink&) = delete;
  ShmLink& operator=(const ShmLink&) = delete;
  ~ShmLink();

  // The file QEMU's memory backend maps (LINK_SHM=... for the Makefile's run command).
  const std::filesystem::path& ram_file() const { return ram_file_; }
  // The board is a process of this machine (the host board): its memory outside the file (its image,
  // its statics) is the process's own (ShmLayout::memory_is_process).
  bool memory_is_process() const { return memory_is_process_; }

  // Queues one frame for the board and sends what fits; false (nothing queued) if the frame is not
  // one the link can carry (unknown kind, payload too large), with the reason in failure text.
  bool send(const rt::link::FrameHeader& header, rt::Span<const uint8_t> payload);
  // Moves queued frames into the ring as far as it has room; returns how many went.
  size_t flush();
  // Hands every complete frame body the board published to `receiver` (at most `max_frames`);
  // returns how many. Stops at a corrupt record (failure() then says why).
  size_t receive(const Receiver& receiver, size_t max_frames = 256);

  // Copies the results of host call `id` of `core` that have an armed target of exactly their size
  // straight into board memory; returns which ones it placed (none if the board armed nothing for
  // this call, e.g. it timed out already). The caller sends a kHostCallReplyInPlace frame for each.
  std::vector<bool> place_results(unsigned core, uint32_t id, const std::vector<std::span<const uint8_t>>& results);
  // The same, with `write` filling result i (of sizes[i] bytes) where it goes in board memory: a
  // result computed straight into its destination, never copied (the pod's collectives).
  std::vector<bool> place_results(unsigned core, uint32_t id, const std::vector<size_t>& sizes, const ResultWriter& write);
  // Host call `id` of `core`'s first result, claimed before the reply to be written in place bit by
  // bit as it is computed (a pod's all_reduce, folded as the boards' parts arrive): its `bytes` of
  // board memory if the board armed exactly that for this call, else nullptr. While it is claimed the
  // board cannot take the target back (a board that gives the call up waits up to
  // kShmHostWritingTimeoutNs for it, then takes it anyway: hold it for much less); release_result
  // hands it back (unless the board has armed it for another call since), and the reply then
  // places the result as any other (place_results).
  uint8_t* claim_result(unsigned core, uint32_t id, size_t bytes);
  void release_result(unsigned core, uint32_t id);
  // Has `fill` write tuple `tuple` of infeed queue `queue` straight into its slot (element e, of
  // element_bytes[e] bytes, into the place it is given), if the board published the queue's slots and
  // the elements fit them exactly, holding the queue open meanwhile (ShmInfeedTarget); false, nothing
  // filled, otherwise (send frames then). True also when `fill` failed part way: the caller knows why.
  using FillElement = std::function<bool(size_t element, std::span<uint8_t> destination)>;
  bool place_infeed_tuple(uint16_t queue, uint64_t tuple, const std::vector<uint64_t>& element_bytes,
                          const FillElement& fill);
  // A copy of `bytes` of board memory at the board's `address`, if all of it lies in the announced
  // aperture (host-call arguments the board left in place); nothing otherwise.
  std::optional<std::vector<uint8_t>> read_board_memory(uint64_t address, uint64_t bytes);
  // The same bytes where they are, without a copy: valid while this link lives; the board keeps them
  // unchanged until it has the call's reply (a board that does not only garbles its own result).
  std::optional<std::span<const uint8_t>> view_board_memory(uint64_t address, uint64_t bytes);
  // Where the board's per-core status table lies (runtime/trace/core_status.hpp), as the board
  // announced it in the control block: {address, bytes}; nothing if it announced none (it has not
  // attached yet, or an image without one).
  std::optional<std::pair<uint64_t, uint64_t>> core_status_place() const;
  // A copy of `bytes` (at most kMaxRamRead) of board RAM at the board's `address`, if all of it lies
  // in the RAM file; nothing otherwise. For diagnostics (hang triage): any RAM, not only the
  // aperture, read-only, and usable after the link failed or the board stopped.
  static constexpr uint64_t kMaxRamRead = 1 << 20;
  std::optional<std::vector<uint8_t>> read_board_ram(uint64_t address, uint64_t bytes) const;
  uint64_t bytes_placed() const { return bytes_placed_; }
  uint64_t bytes_read_in_place() const { return bytes_read_in_place_; }

  // Why the link can no longer be used, if it cannot.
  const std::optional<std::string>& failure() const { return failure_; }
  rt::link::ShmBoardState board_state() const;
  // Tells the board that no host serves the link any more (its waits fail at once).
  void close();
  // tpu's doorbell (runtime/link/transport/shm_ring.hpp, "Waking"): how often the board's cores rang
  // it so far, and a sleep of at most `longest` that a ring after `seen` ends at once (a host board's
  // futex wake; a QEMU guest cannot wake it, so there it is a plain sleep unless the count moved).
  uint32_t board_rings() const;
  void sleep_until_board_rings(uint32_t seen, std::chrono::nanoseconds longest);
  size_t queued_frames() const { return queue_.size(); }
  uint64_t bytes_received() const { return bytes_received_; }
  uint64_t frames_sent() const { return frames_sent_; }
  uint64_t frames_received() const { return frames_received_; }

 private:
  // Host call `id` of `core`'s targets, taken from the board (kArmed -> kWriting) if it armed them for
  // that call: a copy of their fields, read once. Nothing (and nothing changed) otherwise.
  std::optional<rt::link::ShmReplyTarget> take_reply_target(unsigned core, uint32_t id);
  void return_reply_target(unsigned core);  // kWriting -> kArmed (unless the board took it back)
  ShmLink() = default;
  void remove_file();
  void fail(std::string reason);
  // After publishing to the board or releasing its records: rings the board's doorbell, waking the
  // cores asleep on it (runtime/link/transport/shm_ring.hpp, "Waking").
  void ring_board();

  bool memory_is_process_ = false;
  std::filesystem::path folder_;
  std::filesystem::path ram_file_;
  bool file_present_ = false;
  // The board's memory [address, address + bytes) as a pointer into the RAM mapping, if all of it
  // lies inside the aperture the board announced (and the aperture inside the file, off the window).
  uint8_t* board_memory(uint64_t address, uint64_t bytes) const;

  uint8_t* ram_ = nullptr;  // the whole RAM file
  size_t ram_bytes_ = 0;
  uint64_t window_offset_ = 0;
  uint8_t* window_ = nullptr;
  size_t window_bytes_ = 0;
  uint64_t bytes_placed_ = 0;
  uint64_t bytes_read_in_place_ = 0;
  uint64_t frames_sent_ = 0;
  uint64_t frames_received_ = 0;
  rt::link::ShmControl* control_ = nullptr;
  rt::link::ShmRingWriter to_board_;
  rt::link::ShmRingReader to_host_;
  std::deque<std::vector<uint8_t>> queue_;  // frame bodies waiting for room
  std::vector<uint64_t> prefaulted_;        // infeed slot storage made resident (board addresses)
  void prefault_slots(const rt::link::ShmInfeedTarget& target);
  bool fill_slot(const rt::link::ShmInfeedTarget& target, uint64_t tuple, const std::vector<uint64_t>& elements,
                 const FillElement& fill);
  std::vector<uint8_t> record_copy_;
  std::optional<std::string> failure_;
  uint64_t bytes_received_ = 0;
};

// Parses `make print-link-layout` output ("ram offset size", then "process" for a board whose
// memory is a process's); nothing if malformed.
std::optional<ShmLayout> parse_shm_layout(const std::string& text);

}  // namespace tpu
