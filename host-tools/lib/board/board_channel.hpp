// The byte stream to a board, whichever way the host reaches it: a board process it launched
// (QEMU or the host board, on pipes: BoardProcess) or a board it attached to (a serial device or a
// Unix socket: board_attach.hpp), possibly with its link frames on shared memory instead of the byte
// stream (shm_board_channel.hpp). The session loop (session_loop.hpp) only sees this interface.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "board_process.hpp"
#include "qemu_monitor.hpp"
#include "host-tools/lib/tensors/result_writer.hpp"
#include "runtime/link/transport/frame.hpp"

namespace tpu {

// Where a board's per-core status table (runtime/trace/core_status.hpp) lies in its memory, as the
// board announced it (unchecked).
struct CoreStatusPlace {
  uint64_t address = 0;
  uint64_t bytes = 0;
};

class BoardChannel {
 public:
  virtual ~BoardChannel() = default;
  // Queues bytes for the board; never blocks.
  virtual void send(std::span<const uint8_t> bytes) = 0;
  // Waits up to `timeout` for output and appends it to `out`; false once the stream has ended.
  virtual bool pump(std::chrono::milliseconds timeout, std::vector<uint8_t>& out) = 0;
  // A launched board's exit status once it exited (within `timeout`); an attached board has none.
  virtual std::optional<int> wait_for_exit(std::chrono::milliseconds timeout) = 0;
  // Stops a launched board (kills its process group); closes an attached one (named like
  // BoardProcess::kill, so code written for a BoardProcess works with any channel).
  virtual void kill() = 0;
  // True for a board this tool started: it ends the run by exiting. An attached board keeps
  // running, so a run there ends once every core reported its result.
  virtual bool launched() const = 0;
  // "qemu-system-aarch64", "/dev/ttyUSB0", "socket /tmp/qemu.sock" (for messages).
  virtual std::string name() const = 0;

  // Frame transports (shared memory). A channel that carries frames apart from its byte stream
  // takes them here and returns true; a byte channel returns false and the caller sends the frame
  // COBS-encoded with send().
  virtual bool send_frame(const rt::link::FrameHeader& header, rt::Span<const uint8_t> payload) {
    (void)header;
    (void)payload;
    return false;
  }
  // Where such a channel delivers the frame bodies it receives during pump() (unchecked bodies:
  // the receiver checks them like decoded frames). Byte channels deliver frames inside pump()'s bytes.
  using FrameReceiver = std::function<void(std::span<const uint8_t> body)>;
  virtual void set_frame_receiver(FrameReceiver receiver) { (void)receiver; }
  // Why the link failed for good (a corrupt shared-memory ring), if it did.
  virtual std::optional<std::string> link_failure() const { return std::nullopt; }
  // Host-call results written straight into the board's memory where it armed targets for them
  // (shared memory); which ones were. Byte channels place nothing.
  // `write` fills result i (sizes[i] bytes) in its place (result_writer.hpp).
  virtual std::vector<bool> place_results(unsigned core, uint32_t id, const std::vector<size_t>& sizes,
                                          const ResultWriter& write) {
    (void)core, (void)id, (void)write;
    return std::vector<bool>(sizes.size(), false);
  }
  // A host call's first result claimed before the reply, to be written in place as it is computed
  // (ShmLink::claim_result): its `bytes` of board memory, or nullptr (byte channels: always).
  virtual uint8_t* claim_result(unsigned core, uint32_t id, size_t bytes) {
    (void)core, (void)id, (void)bytes;
    return nullptr;
  }
  virtual void release_result(unsigned core, uint32_t id) { (void)core, (void)id; }
  // An infeed tuple written straight into its slot on the board (shared memory): `fill` writes
  // element e's element_bytes[e] bytes into the place it is given. Byte channels: false, nothing filled.
  using FillElement = std::function<bool(size_t element, std::span<uint8_t> destination)>;
  virtual bool place_infeed_tuple(uint16_t queue, uint64_t tuple, const std::vector<uint64_t>& element_bytes,
                                  const FillElement& fill) {
    (void)queue, (void)tuple, (void)element_bytes, (void)fill;
    return false;
  }
  // A launched board that is a process of this machine (the host board): a copy of its memory.
  virtual std::optional<std::vector<uint8_t>> read_process_memory(uint64_t address, uint64_t bytes) const {
    (void)address, (void)bytes;
    return std::nullopt;
  }
  // Board memory the host reads directly (shared memory, inside the board's announced memory).
  virtual std::optional<std::vector<uint8_t>> read_board_memory(uint64_t address, uint64_t bytes) {
    (void)address, (void)bytes;
    return std::nullopt;
  }
  // The same bytes where they lie, without a copy (valid while the channel lives).
  virtual std::optional<std::span<const uint8_t>> view_board_memory(uint64_t address, uint64_t bytes) {
    (void)address, (void)bytes;
    return std::nullopt;
  }
  // Hang triage (core_triage.hpp): where the board's per-core status table lies and a copy of any
  // range of its RAM, on a transport that maps the board's RAM (shared memory); nothing elsewhere.
  virtual std::optional<CoreStatusPlace> core_status_place() const { return std::nullopt; }
  virtual std::optional<std::vector<uint8_t>> read_board_ram(uint64_t address, uint64_t bytes) const {
    (void)address, (void)bytes;
    return std::nullopt;
  }
  // Where `cores` of a launched board execute now, as addresses addr2line takes (the host board's
  // position-independent image: offsets into it), read from outside the board (QEMU's monitor,
  // ptrace on the host board's core threads); a core that cannot be located is left out.
  virtual std::map<unsigned, uint64_t> core_program_counters(const std::vector<unsigned>& cores) {
    (void)cores;
    return {};
  }
  // Whether waiting for the board may spin a CPU after activity (a transport that polls shared
  // memory); false where the board's cores take every CPU (host-tools/lib/board/cpu_sharing.hpp).
  virtual void set_spin(bool spin) { (void)spin; }
  // The largest frame payload the transport carries.
  virtual size_t max_frame_payload() const { return rt::link::kMaxPayload; }
  // What the transport moved, for the end-of-run report ("" if nothing to say).
  virtual std::string transport_summary() const { return ""; }
  // "uart" or "shm": which transport carries the frames.
  virtual std::string transport() const { return "uart"; }
};

// Wraps a started board process; `program` names it in messages; `monitor`: QEMU's, if it was
// launched with one (qemu_monitor.hpp). A process without a monitor is the host board.
std::unique_ptr<BoardChannel> launched_board(BoardProcess process, std::string program,
                                             std::optional<QemuMonitor> monitor = std::nullopt);

}  // namespace tpu
