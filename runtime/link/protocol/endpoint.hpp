// The board's end of the host link: says hello, sends log lines, outfeed tuples and run results,
// and makes blocking host calls (outside compilation) from any core.
//
// Handshake. The board stays silent on the link until the host has introduced itself: when a host
// hello arrives, the endpoint answers with the board's hello (and again after every later host
// hello, so a restarted host tool is welcomed too). Until then nothing but console text is written,
// so a board run without `tpu run` (make run, the test harness) prints plain text only. Sends that
// need a host (host calls, outfeed) wait for the hello within their timeout; log and result frames
// are simply not sent without a host (the console carries the same facts as text).
//
// Who reads the link. There is no service loop: any core that waits on the link (for the host's
// hello or for a host-call reply) pumps the receive side itself, under a try-lock, so exactly one
// core decodes at a time and the others just wait. Replies are routed by their channel (the calling
// core) and call id into that core's pending-call slot, whichever core decoded them. So a core busy
// computing never delays another core's call, and all cores may call the host at once (each has one
// call outstanding). Output frames are written under the port's output lock (the console lock), so
// frames and console lines never interleave; each core encodes into its own buffers.
//
// Infeed (infeed_buffer.hpp): an attached InfeedBuffer receives the kInfeedData frames of its link
// queue from whichever core decodes; replicas wait for their tuple with wait_for_infeed (which pumps
// the link like a host call does) and grant the host credits as they release slots.
//
// Every wait has a deadline; a call the host never answers fails with DEADLINE_EXCEEDED naming the
// core, the call id and the function. A late reply to a call that timed out is counted and dropped
// (a timed-out call is cancelled under the receive lock, so no reply can land in the caller's
// buffers afterwards).
#pragma once
#include "runtime/link/transport/decoder.hpp"
#include "host_result.hpp"
#include "infeed_buffer.hpp"
#include "runtime/link/transport/link_port.hpp"
#include "message.hpp"
#include "hal/support/atomic.hpp"

namespace rt::link {

inline constexpr unsigned kMaxLinkCores = 16;
inline constexpr unsigned kMaxInfeedQueues = 4;                      // attached at once
inline constexpr uint64_t kInfeedCreditRefreshNs = 500ull * 1000000;  // re-sent this often while waiting
inline constexpr uint64_t kOutfeedInPlaceMinBytes = 64 * 1024;        // smaller outfeed tuples go as frames

// What the board says about itself in its hello.
struct BoardIdentity {
  StringView board;
  StringView app;
  uint16_t cores = 1;
  uint16_t mesh_shape[4] = {1, 1, 1, 1};  // x, y, z, core; product = cores
};

struct EndpointCounters {
  DecoderCounters decoder;     // bytes and frames from the host, bad frames by class
  uint64_t sequence_gaps = 0;  // host frames whose sequence number was not the next one
  uint64_t stale_replies = 0;  // replies to no pending call (late, duplicated or wrong id)
  uint64_t rejected = 0;       // frames the board could not use (answered with an error frame)
  uint64_t infeed_dropped = 0; // infeed frames dropped silently (their queue had already failed)
};

class Endpoint final : private FrameSink {
 public:
  Endpoint(LinkPort& port, const BoardIdentity& identity);
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  // Decodes whatever the host has sent so far (never blocks; does nothing if another core is
  // decoding). Any core, any time.
  // Reads and decodes what the link has (bounded); returns the bytes read (0: nothing, or another
  // core is receiving). Waiting loops idle only after a poll that read nothing, so a stream keeps
  // the UART's small receive FIFO drained.
  size_t poll();
  bool host_connected() const { return host_connected_.load(MemoryOrder::kAcquire); }
  // Polls until the host's hello arrived; DEADLINE_EXCEEDED naming the core and `purpose` if not.
  Status wait_for_host(uint64_t timeout_ns, StringView purpose);
  // Polls until the host said which task of its pod this board is (kPod, sent right after the host's
  // hello); DEADLINE_EXCEEDED if it did not within `timeout_ns`.
  Result<PodInfo> wait_for_pod(uint64_t timeout_ns);
  // The board's place in its pod, decided once as it boots (the host's kPod, or task 0 of 1 without
  // one): said to the host now (if it said hello) and again in answer to every later kPod, so that
  // a host that attached to a board already running learns the board is not the task it meant.
  void fix_pod_place(const PodInfo& place);

  // Calls `function` on the host with a text argument and tensors (contiguous); the results land
  // in `results`, one slot per result the function returns. Errors: the host's status (unknown
  // function, the function failed), a reply that does not fit the slots, DEADLINE_EXCEEDED.
  // `replica` (kNoReplica: none) travels with the request, so the host can name the caller.
  Status host_call(StringView function, StringView text_argument, Span<const Tensor> arguments,
                   Span<const HostResult> results, uint64_t timeout_ns, uint16_t replica = kNoReplica);
  // A host call without results that the core does not wait for (TF's outside compilation with no
  // outputs: the device sends and goes on): the request goes out (its tensors copied into frames,
  // never read in place, since the caller may change them at once) and the call returns. Its reply
  // is awaited by the core's next host call, outfeed or detached call, or by settle_detached_call():
  // an error of the host function (or no reply within `timeout_ns` of sending) surfaces there,
  // naming the call. Up to kMaxDetachedCalls calls per core are in flight (so a host that is slow
  // to answer once, e.g. its process waiting for a CPU, does not hold the core up); a core that
  // calls faster than the host answers waits for its oldest call's reply first. A detached call
  // answered with an error by the time the core's next detached call goes out fails that call.
  static constexpr unsigned kMaxDetachedCalls = 4;
  Status host_call_detached(StringView function, StringView text_argument, Span<const Tensor> arguments,
                            uint64_t timeout_ns, uint16_t replica = kNoReplica);
  // Waits for every detached call of the calling core in flight, oldest first; the first error.
  Status settle_detached_call();

  // Sends one outfeed tuple (contiguous tensors, at most 255) on `queue`; channel = calling core.
  // Waits up to `timeout_ns` for a host to be connected.
  Status outfeed(uint16_t queue, Span<const Tensor> tuple, uint64_t timeout_ns);

  // One log line as a frame (only if a host is connected; returns UNAVAILABLE otherwise).
  Status send_log(char level, StringView text);

  // The outcome of core `core`'s run (run id 0: the app the board booted), if a host is connected.
  Status send_result(unsigned core, const Status& outcome);

  // Infeed: from now on the kInfeedData frames of link queue buffer.queue() go into `buffer` (it
  // must outlive the attachment); an error if another buffer has that queue, all slots are taken or
  // the first credits cannot be sent (then nothing stays attached).
  Status attach_infeed(InfeedBuffer& buffer);
  // Ends the attachment and sends the queue's final credits (InfeedCredits::closed): the host learns
  // how many tuples the board consumed, its last batch included, and sends no more.
  void detach_infeed(InfeedBuffer& buffer);
  // Sends the buffer's credit totals: kBatched once they grew by a quarter of the slots since they
  // were last sent (so the host wakes once per few tuples, not per tuple, while the replicas still
  // have tuples buffered), kNow if they grew at all (a replica is about to wait), kRefresh always,
  // kClosing always and marked closed (the queue's final totals, detach_infeed). OK (nothing sent)
  // while no host is connected.
  enum class CreditGrant : uint8_t { kBatched, kNow, kRefresh, kClosing };
  Status grant_infeed_credits(InfeedBuffer& buffer, CreditGrant when = CreditGrant::kBatched);
  // Pumps the link until tuple `tuple` of the buffer is complete. Errors: the queue's failure, or
  // DEADLINE_EXCEEDED naming the core and the queue. Re-sends the credits every
  // kInfeedCreditRefreshNs while it waits (a lost credit frame, or a host that connected late).
  Status wait_for_infeed(InfeedBuffer& buffer, uint64_t tuple, uint64_t timeout_ns);

  EndpointCounters counters() const;

 private:
  enum class CallState : uint32_t { kIdle, kWaiting, kDone };

  // One core's outstanding host call. Written by the calling core before the request goes out and
  // by the decoding core (under the receive lock) until it marks the call done.
  struct alignas(kCacheLineSize) PendingCall {
    Atomic<uint32_t> state{static_cast<uint32_t>(CallState::kIdle)};
    uint32_t id = 0;
    StringView function;
    Span<const HostResult> results;
    uint8_t next_result = 0;   // the result the next reply chunk must belong to
    uint64_t next_offset = 0;  // and its byte offset there
    Status outcome;
    // A detached call (host_call_detached) nobody waits on yet: its name (the caller's string may be
    // gone by the time its reply is checked) and deadline.
    bool detached = false;
    FixedString<40> detached_name;
    uint64_t deadline_ns = 0;
    uint64_t timeout_ns = 0;
  };

  // Per-core scratch: payloads are assembled before the output lock, frames encoded under it.
  struct CoreBuffers {
    uint8_t payload[kMaxPayload];
    uint8_t wire[kMaxWireFrameBytes];
    char call_text[kMaxPayload];
  };

  // FrameSink (called under the receive lock).
  void on_text(Span<const uint8_t> text) override;
  void on_frame(const FrameView& frame) override;

  bool try_lock_receive();
  void unlock_receive();
  void lock_receive();  // blocking, bounded (cancelling a call)

  Status send_frame(MessageKind kind, uint16_t channel, Span<const uint8_t> payload);
  Status send_hello();
  void send_error(StatusCode code, const FrameView& related, StringView message);

  void on_hello(const FrameView& frame);
  void on_pod(const FrameView& frame);
  void send_pod_place();
  void on_reply(const FrameView& frame);
  void on_host_error(const FrameView& frame);
  void on_infeed(const FrameView& frame);
  void on_infeed_in_place(const FrameView& frame);
  void on_infeed_spec(const FrameView& frame);
  // The open, healthy buffer an infeed frame for `queue` goes to; nullptr (the frame answered with an
  // error, or dropped for a queue that already failed) otherwise.
  InfeedBuffer* receiving_infeed(const FrameView& frame, uint16_t queue);
  InfeedBuffer* infeed_buffer(uint16_t queue) const;
  void on_reply_in_place(const FrameView& frame);
  void accept_reply_chunk(PendingCall& call, const CallMessage& reply);
  void finish_results(PendingCall& call);  // every result arrived: checks text fits, ends the call
  void finish_call(PendingCall& call, const Status& outcome);

  Result<StringView> build_call_text(StringView function, StringView argument, CoreBuffers& buffers);
  Status send_call_request(uint32_t id, uint16_t replica, StringView text, Span<const Tensor> arguments,
                           bool in_place_allowed = true);
  // What every call of `core` does first: its text (function name and argument) in the core's
  // buffers, a host on the link, and (unless `detached`) the core's detached calls settled.
  Result<StringView> open_call(unsigned core, StringView function, StringView text_argument, uint64_t timeout_ns,
                               bool detached = false);
  // Sets up a call slot for a new call and returns it.
  PendingCall& start_call(PendingCall& call, StringView function, Span<const HostResult> results);
  // A free detached slot of `core`: calls already answered are settled first (an error among them is
  // returned), and with every slot in flight the oldest is waited for.
  Result<PendingCall*> detached_slot(unsigned core);
  Status settle(PendingCall& call);  // waits for a detached call's reply; its outcome, naming the call
  // The call of `channel` waiting for the reply to call `id` (its core's own call or a detached one);
  // nullptr if none (a late reply).
  PendingCall* waiting_call(unsigned channel, uint32_t id);
  Status send_tensor_chunks(MessageKind kind, CallMessage& call, const Tensor& tensor);
  Status send_argument_in_place(const CallMessage& request, const Tensor& tensor);
  bool outfeed_in_place_possible(Span<const Tensor> tuple);
  Status outfeed_in_place(uint16_t queue, Span<const Tensor> tuple, uint64_t timeout_ns);
  Status wait_for_reply(PendingCall& call, uint64_t deadline_ns, uint64_t timeout_ns);
  bool cancel_call(PendingCall& call);  // true if the reply had completed after all
  // OK, or (naming the calling core) why a frame transport can no longer be used.
  Status link_failure();

  LinkPort& port_;
  FrameTransport* const transport_;  // the port's frame transport (shared memory), or null (byte stream)
  BoardIdentity identity_;
  Decoder decoder_;
  Atomic<uint32_t> receive_busy_{0};  // 32-bit: RV64 has no byte-wide compare-and-swap
  Atomic<uint32_t> receive_waiters_{0};  // cores inside lock_receive()
  Atomic<bool> host_connected_{false};
  Atomic<bool> pod_known_{false};
  PodInfo pod_;  // written under the receive lock before pod_known_
  Atomic<bool> pod_place_fixed_{false};
  PodInfo pod_place_;  // written before pod_place_fixed_, never after
  Atomic<uint32_t> next_call_id_{1};
  uint32_t send_sequence_ = 0;          // under the output lock
  uint32_t expected_host_sequence_ = 0;  // under the receive lock
  bool seen_host_frame_ = false;
  EndpointCounters counters_;            // decoder part filled in by counters()
  PendingCall calls_[kMaxLinkCores];
  PendingCall detached_[kMaxLinkCores][kMaxDetachedCalls];
  InfeedBuffer* infeed_[kMaxInfeedQueues] = {};  // changed and read under the receive lock
  CoreBuffers buffers_[kMaxLinkCores];
};

}  // namespace rt::link
