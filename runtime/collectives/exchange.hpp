// Exchange: one step of a collective, i.e. a set of messages this core sends and receives,
// progressed together until all complete, so that no ordering of peers can deadlock on full rings.
// Each pass over the operations ends with one mailbox::notify_cores for every peer it touched
// (one fence per pass, however many peers).
//
// Every message is a 16-byte header {kind, sequence, payload bytes} plus the payload, padded to a
// multiple of 8 bytes. Ring cells hold 56 bytes and every write starts a fresh cell; the first
// carries the header and the first 40 payload bytes (a message of up to 40 is one cell, one cache
// line for the receiver to fetch), so payload pieces start at multiples of 8 and an element
// (<= 8 bytes) never straddles two cells. The receiver checks the header against what it expects
// and reports a mismatch (different collective, different call, different size) by name.
// A failed exchange (mismatch, timeout or cancellation) may leave bytes of the failed call in the
// rings; a later call of the same launch on that pair then reports a mismatch rather than reading
// them as its own data. replicate drops them once every core of the failed launch is idle (SpscRing::discard_unread),
// so the next launch starts from empty rings.
//
// Local contributions (a member's own block in all_gather or all_to_all) are delivered to their
// sink like received data, so collectives treat every member the same way.
#pragma once
#include "hal/core.hpp"
#include "hal/support/status.hpp"
#include "strided.hpp"

namespace rt {

enum class CollectiveKind : uint32_t {
  kAllReduce = 1, kAllGather, kReduceScatter, kAllToAll, kCollectivePermute, kBroadcast, kBarrier,
};
const char* collective_kind_name(CollectiveKind kind);

// Where a message's payload goes: its pieces, in order, scattered into `destination` (`offset` is
// the byte offset within the payload). No destination: an empty message (a barrier's).
struct Sink {
  const StridedBytes* destination = nullptr;

  void consume(const uint8_t* bytes, size_t offset, size_t count) const {
    if (destination != nullptr) destination->scatter(offset, bytes, count);
  }
};

class Exchange {
 public:
  static constexpr unsigned kMaxOps = 2 * hal::kMaxCores;

  Exchange(CollectiveKind kind, uint32_t sequence);

  // Queues a message to `peer` whose payload is read from `source` (at most one per peer).
  void send(unsigned peer, const StridedBytes& source);
  // Queues a message from `peer` of `bytes` payload bytes, delivered to `sink`.
  void receive(unsigned peer, size_t bytes, Sink sink);
  // A local contribution: `sink` gets `source` as if it had been received.
  void local(const StridedBytes& source, Sink sink);

  // Progresses everything to completion or fails: header mismatch, no completion within timeout_ns
  // (the error names this core, the collective and each peer still outstanding), or a peer it still
  // waits for left the launch with an error (CANCELLED naming it; cancellation.hpp).
  Status run(uint64_t timeout_ns);

 private:
  struct SendOp {
    unsigned peer;
    StridedBytes source;
    uint8_t header[16];
    size_t total;  // header + payload + padding
    size_t done;
  };
  struct ReceiveOp {
    unsigned peer;  // kLocal for local contributions
    size_t bytes;
    Sink sink;
    StridedBytes local_source;
    uint8_t header[16];
    size_t done;  // header + payload + padding consumed
    bool finished;
  };
  static constexpr unsigned kLocal = ~0u;

  bool progress_send(SendOp& op);
  Status progress_receive(ReceiveOp& op, bool& progressed);
  bool everything_finished() const;
  bool anything_ready() const;
  uint32_t outstanding_peer() const;
  static bool pending(const SendOp& op) { return op.done < op.total; }
  static bool waits_on_peer(const ReceiveOp& op) { return !op.finished && op.peer != kLocal; }
  template <class Predicate>
  uint32_t first_peer_where(Predicate matches) const;
  uint32_t peer_that_left() const;
  Status timeout_error(uint64_t timeout_ns) const;
  Status cancelled_error(unsigned peer) const;

  // Operation slots, constructed only as operations are queued (an Exchange lives on the stack
  // of every collective call: initialising all slots would cost more than a small message).
  union SendSlots {
    SendSlots() {}
    SendOp ops[kMaxOps];
  };
  union ReceiveSlots {
    ReceiveSlots() {}
    ReceiveOp ops[kMaxOps];
  };

  CollectiveKind kind_;
  uint32_t sequence_;
  unsigned me_;                // this core
  uint32_t notify_mask_ = 0;   // peers whose rings this pass published to or freed space in
  SendSlots sends_;
  unsigned send_count_ = 0;
  ReceiveSlots receives_;
  unsigned receive_count_ = 0;
};

}  // namespace rt
