// The host's end of one link session with a board: feed it every byte the board writes (console
// text and frames mixed, any chunking, any garbage) and it
//   - passes console text and the board's log frames on as they arrive, keeping a tail of lines;
//   - answers the board's hello (the host says hello first: send_hello() at start, and on a serial
//     line again until the board answers: say_hello_again_if_unanswered);
//   - reassembles host-call requests, runs the host function, sends the reply (or the error);
//   - reassembles outfeed tuples and hands them to the outfeed sink;
//   - records each core's run result and the board's error reports;
//   - counts bad frames (by the decoder), sequence gaps and what it had to reject.
// It never throws out of feed() and holds bounded memory per core (chunk_assembler.hpp), so any
// byte sequence is safe (host-tools/tests/test_link_session.cpp feeds it random and corrupted
// streams). Notes for the user ("tpu: ...") go to the notes stream.
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunk_assembler.hpp"
#include "host-tools/lib/console/console_tail.hpp"
#include "host-tools/lib/functions/host_functions.hpp"
#include "host-tools/lib/feeds/outfeed_sink.hpp"
#include "runtime/link/transport/decoder.hpp"
#include "runtime/link/protocol/message.hpp"
#include "runtime/tpu/replicate/executor.hpp"

namespace tpu {

// Where the session's output goes: console text to the user, frames to the board.
class SessionOutput {
 public:
  virtual void console(std::string_view text) = 0;
  virtual void send_to_board(std::span<const uint8_t> bytes) = 0;
  // A frame for a link that carries frames apart from the byte stream (shared memory): true if it
  // took it; false (the default) and the session sends it COBS-encoded through send_to_board.
  virtual bool send_frame(const rt::link::FrameHeader& header, rt::Span<const uint8_t> payload) {
    (void)header;
    (void)payload;
    return false;
  }
  // The largest frame payload the output's transport carries.
  virtual size_t max_frame_payload() const { return rt::link::kMaxPayload; }
  // `bytes` of board memory at the board's `address` (shared memory, inside the memory the board
  // announced); nothing where the transport cannot read it.
  virtual std::optional<std::vector<uint8_t>> read_board_memory(uint64_t address, uint64_t bytes) {
    (void)address, (void)bytes;
    return std::nullopt;
  }
  // The same bytes where they lie, without a copy (valid while the output lives).
  virtual std::optional<std::span<const uint8_t>> view_board_memory(uint64_t address, uint64_t bytes) {
    (void)address, (void)bytes;
    return std::nullopt;
  }
  // Host-call results the transport had `write` fill straight into board memory (shared memory; see
  // ShmLink::place_results); the session then sends a kHostCallReplyInPlace frame for each.
  virtual std::vector<bool> place_results(unsigned core, uint32_t id, const std::vector<size_t>& sizes,
                                          const ResultWriter& write) {
    (void)core, (void)id, (void)write;
    return std::vector<bool>(sizes.size(), false);
  }

 protected:
  ~SessionOutput() = default;
};

struct BoardInfo {
  std::string board;
  std::string app;
  unsigned cores = 0;
  std::array<uint16_t, 4> mesh_shape{};
  size_t max_payload = rt::link::kMaxPayload;  // the largest frame payload the board takes (its hello)
  bool operator==(const BoardInfo&) const = default;
};

struct CoreResult {
  rt::StatusCode code = rt::StatusCode::kOk;
  std::string message;

  // A serving core of a TPU program stopped after the program failed (rt::tpu::serve): its failure
  // is the program's, which core 0 reports.
  bool stopped_with_program() const {
    return code == rt::StatusCode::kCancelled && message == rt::tpu::kStoppedAfterFailedProgram;
  }
};

// A host function's error reply: kept so that a core failing with it can be told where it came from.
struct HostFunctionError {
  std::string function;
  unsigned core = 0;
  std::optional<unsigned> replica;
  uint32_t call = 0;
  rt::StatusCode code = rt::StatusCode::kOk;
  std::string message;
};

struct SessionCounters {
  rt::link::DecoderCounters decoder;
  uint64_t sequence_gaps = 0;    // board frames whose sequence number was not the next one
  uint64_t rejected = 0;         // frames answered with an error frame (could not be used)
  uint64_t host_calls = 0;       // calls served (including failed ones)
  uint64_t outfeed_dropped = 0;  // outfeed tuples lost to missing chunks
  uint64_t board_errors = 0;     // error frames from the board
  uint64_t trace_frames = 0;     // trace batches (not recorded yet)
};

class LinkSession final : private rt::link::FrameSink {
 public:
  LinkSession(SessionOutput& output, const HostFunctions& functions, OutfeedSink& outfeed, std::ostream& notes);
  LinkSession(const LinkSession&) = delete;
  LinkSession& operator=(const LinkSession&) = delete;

  // The host's hello, then the board's place in its pod (kPod; task 0 of 1 unless set_pod said).
  void send_hello();
  // On a serial line the first hello can be lost: a board attached to (--serial, --socket) may boot
  // after tpu spoke, or overrun its UART's FIFO while it boots (a Pi's mini UART holds 8 bytes). Says
  // hello (and kPod) again once `interval` has passed since the last time, until the board's hello
  // and its place in the pod (its kPod) arrived. A board that already answered takes a repeated
  // hello as a question and answers again; a repeated kPod changes nothing (the place is fixed at
  // boot). A board that says hello from the start again (frame 0: it restarted) is greeted anew.
  void say_hello_again_if_unanswered(std::chrono::steady_clock::time_point now,
                                     std::chrono::milliseconds interval = kHelloRepeatInterval);
  // How often a hello is said again on a serial line: often enough that a board booting for a few
  // hundred milliseconds (a Pi after its firmware) finds a byte of it in its UART.
  static constexpr std::chrono::milliseconds kHelloRepeatInterval{100};
  void set_pod(unsigned task, unsigned num_tasks) { pod_ = rt::link::PodInfo{uint16_t(task), uint16_t(num_tasks)}; }
  void feed(std::span<const uint8_t> bytes) { decoder_.feed(rt::Span<const uint8_t>(bytes.data(), bytes.size())); }
  void end_of_stream() { decoder_.end_of_stream(); }
  // One frame body from a frame transport (shared memory): checked like a decoded frame. A body
  // that fails the check is counted and recorded (record_failure()): memory does not lose bits, so
  // it means a corrupt ring, and the run must fail.
  void feed_frame_body(std::span<const uint8_t> body);
  const std::optional<std::string>& record_failure() const { return record_failure_; }
  // The largest payload frames to the board may have (what the board and the transport take).
  size_t max_send_payload() const;

  // Infeed (infeed_sender.hpp): the board's credit messages go to the listener; the sender's frames
  // go out through send_message, numbered in this session's sequence.
  using CreditListener = std::function<void(unsigned channel, const rt::link::InfeedCredits& credits)>;
  void set_credit_listener(CreditListener listener) { credit_listener_ = std::move(listener); }
  void send_message(rt::link::MessageKind kind, uint16_t channel, rt::Span<const uint8_t> payload) {
    send_frame(kind, channel, payload);
  }

  const std::optional<BoardInfo>& board() const { return board_; }
  // The place in its pod the board says it took as it booted (its answer to kPod), once it said.
  const std::optional<rt::link::PodInfo>& board_pod_place() const { return board_pod_place_; }
  // Why the board is not the task this session told it to be (it booted before tpu spoke, so it
  // never heard), or nothing.
  std::optional<std::string> pod_place_mismatch() const;
  const std::map<unsigned, CoreResult>& results() const { return results_; }
  // The latest host function error whose code and message a core's failure carries, if any.
  const HostFunctionError* host_error_behind(const CoreResult& failure) const;
  const ConsoleTail& console_tail() const { return tail_; }
  SessionCounters counters() const;

 private:
  struct PendingRequest {
    uint32_t id = 0;
    uint16_t replica = rt::link::kNoReplica;
    std::string text;
    ChunkAssembler arguments{0};
    std::vector<std::span<const uint8_t>> in_board;  // arguments read where the board keeps them
  };
  struct PendingTuple {
    uint8_t element_count = 0;
    ChunkAssembler elements{0};
  };

  // FrameSink
  void on_text(rt::Span<const uint8_t> text) override;
  void on_frame(const rt::link::FrameView& frame) override;

  void on_hello(const rt::link::FrameView& frame);
  void on_pod_place(const rt::link::FrameView& frame);
  void on_log(const rt::link::FrameView& frame);
  void on_request(const rt::link::FrameView& frame);
  void on_request_in_place(const rt::link::FrameView& frame);
  // One chunk of a call's arguments; or, with `in_board`, a whole argument the function reads in board memory.
  void accept_request(unsigned core, const rt::link::CallMessage& request,
                      std::optional<std::span<const uint8_t>> in_board = std::nullopt);
  void on_outfeed(const rt::link::FrameView& frame);
  void serve_outfeed(unsigned core, uint32_t id, const std::string& queue_text, const std::vector<HostTensor>& tuple);
  void on_result(const rt::link::FrameView& frame);
  void on_board_error(const rt::link::FrameView& frame);
  void on_credits(const rt::link::FrameView& frame);

  void serve(unsigned core, uint32_t id, uint16_t replica, const std::string& text, std::vector<HostTensor> arguments,
             std::vector<std::span<const uint8_t>> in_board = {});
  void send_reply(unsigned core, uint32_t id, const HostCallOutcome& outcome);
  void remember_host_error(HostFunctionError error);
  void send_unsendable(unsigned core, uint32_t id, size_t result, const rt::Status& why);
  void send_frame(rt::link::MessageKind kind, uint16_t channel, rt::Span<const uint8_t> payload);
  void send_error(rt::StatusCode code, const rt::link::FrameView& related, const std::string& message);
  bool channel_ok(const rt::link::FrameView& frame);
  void print_console(std::string_view text);

  SessionOutput& output_;
  const HostFunctions& functions_;
  OutfeedSink& outfeed_;
  std::ostream& notes_;
  rt::link::Decoder decoder_;
  ConsoleTail tail_;
  uint32_t send_sequence_ = 0;
  std::optional<uint32_t> expected_board_sequence_;
  std::optional<BoardInfo> board_;
  rt::link::PodInfo pod_;
  std::optional<rt::link::PodInfo> board_pod_place_;
  std::chrono::steady_clock::time_point hello_sent_at_{};
  std::map<unsigned, CoreResult> results_;
  std::vector<HostFunctionError> host_errors_;  // the latest few (kKeptHostErrors)
  std::map<unsigned, PendingRequest> requests_;
  std::map<std::pair<unsigned, uint16_t>, PendingTuple> tuples_;
  SessionCounters counters_;
  CreditListener credit_listener_;
  rt::link::DecoderCounters record_counters_;  // frames from a frame transport
  std::optional<std::string> record_failure_;
};

}  // namespace tpu
