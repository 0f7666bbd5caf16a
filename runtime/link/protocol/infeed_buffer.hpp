// InfeedBuffer: the board's receive buffer for one infeed queue, filled by the host over the link and
// drained by the replicas. HAL-free (the endpoint feeds it, runtime/tpu/infeed/infeed_dequeue.hpp drains it).
//
// Data path. The host streams full tuples (every element at its full, unsharded shape) as kInfeedData
// messages on channel 0 (the pod, received by whichever core decodes the link): tuple after tuple,
// element after element, each element's chunks at ascending offsets without gaps (message.hpp,
// tensor_chunk.hpp). Tuple t lands in slot t % slots of caller-provided memory (shared, every core
// reads it), each element at a 64-byte aligned offset, exactly its .npy data bytes. When its last
// chunk arrived the tuple is complete (complete_tuples() counts them, release ordering), and each of
// the `consumers` (one per replica, i.e. per shard) reads its piece and releases the tuple.
//
// Credits (kInfeedCredits, board -> host, channel 0): totals since the queue was opened,
//   granted_tuples = min over consumers of tuples released + slots
//   granted_bytes  = granted_tuples * tuple_bytes   (tuple_bytes: the sum of the elements' bytes)
// so the host may have sent at most granted_tuples tuples and granted_bytes bytes: a tuple is only
// ever sent into a slot every consumer has released. Totals make a lost, repeated or reordered
// credit message harmless (the host keeps the largest it saw); the board re-sends its credits while
// a replica waits for data, so a lost one only delays. Before the board opens the queue it grants
// nothing, and the host sends nothing.
//
// The stream is checked chunk by chunk: element count, element index and byte offset must be the
// next ones, dtype and shape must be the element's, and the tuple must lie within the credits. The
// first violation fails the queue for good (there is no retransmission, so data would be lost or
// misplaced): accept() returns the reason (the endpoint sends it to the host as an error frame) and
// every waiting or later dequeue returns it (failure()).
//
// Concurrency: accept() runs on one core at a time (the endpoint's receive lock); consumers run on
// their own cores. A slot is written only after every consumer released its previous tuple
// (acquire), and read only after complete_tuples() passed it (acquire).
#pragma once
#include "message.hpp"
#include "runtime/link/transport/placement.hpp"
#include "hal/support/atomic.hpp"
#include "runtime/tensor/tensor.hpp"

namespace rt::link {

inline constexpr unsigned kMaxInfeedElements = 8;
inline constexpr unsigned kMaxInfeedSlots = 64;
inline constexpr unsigned kMaxInfeedConsumers = 16;
inline constexpr size_t kInfeedAlignment = 64;

struct InfeedElementSpec {
  DType dtype = DType::kF32;
  Shape shape;  // the full (unsharded) shape the host sends
  // In a pod: the dimension along which this board's part was cut from the pod's tuples (the
  // credits tell the host: InfeedCredits::cut_dimensions); 0 on one board.
  uint8_t pod_cut_dimension = 0;
};

class InfeedBuffer {
 public:
  InfeedBuffer() = default;
  InfeedBuffer(const InfeedBuffer&) = delete;
  InfeedBuffer& operator=(const InfeedBuffer&) = delete;

  // Bytes of storage `slots` tuples of these elements take (each element 64-byte aligned).
  static Result<size_t> storage_bytes(Span<const InfeedElementSpec> elements, unsigned slots);

  // Sets the buffer up for link queue `queue` (named `name` in messages, e.g. the InfeedQueue's
  // name) with storage_bytes(elements, slots) bytes at `storage` (64-byte aligned). Any earlier
  // state is forgotten: a new stream starts at tuple 0.
  Status init(uint16_t queue, StringView name, Span<const InfeedElementSpec> elements, unsigned slots,
              unsigned consumers, Span<uint8_t> storage);

  uint16_t queue() const { return queue_; }
  StringView name() const { return name_; }
  unsigned element_count() const { return element_count_; }
  const InfeedElementSpec& element_spec(unsigned element) const { return specs_[element]; }
  unsigned slots() const { return slots_; }
  unsigned consumers() const { return consumers_; }
  uint64_t tuple_bytes() const { return tuple_bytes_; }

  // ---- receiving side (one core at a time)
  // Takes one chunk of the stream. An error fails the queue (see above) and says why.
  Status accept(const QueueData& data);
  // Tuple `tuple` was written straight into its slot (shared memory): it must be the next tuple, not
  // begun by chunks, and within the credits; then it is complete. An error fails the queue.
  Status accept_in_place(uint64_t tuple);
  // The host's word on what it places in memory (kInfeedSpec): element `data.element_index` of
  // `data.element_count` has that dtype and shape. A mismatch fails the queue with the error a chunk
  // of that dtype and shape gets.
  Status accept_spec(const InfeedSpec& data);
  // Where the slots are (for a host that writes them in place).
  const uint8_t* storage() const { return storage_; }
  size_t slot_bytes() const { return slot_bytes_; }
  size_t element_offset(unsigned element) const { return element_offsets_[element]; }
  uint64_t element_bytes(unsigned element) const { return element_bytes_[element]; }
  // All of the above, for a frame transport that publishes it (FrameTransport::publish_infeed).
  InfeedSlotMemory slot_memory() const {
    return InfeedSlotMemory{queue_, slots_, storage_, slot_bytes_, Span<const size_t>(element_offsets_, element_count_),
                            Span<const uint64_t>(element_bytes_, element_count_)};
  }
  // Bytes of the tuple being received that have arrived (for messages).
  uint64_t partial_bytes() const { return partial_bytes_; }

  // ---- consumer side
  uint64_t complete_tuples() const { return complete_.load(MemoryOrder::kAcquire); }
  // The next tuple `consumer` has not released yet.
  uint64_t next_tuple(unsigned consumer) const { return released_[consumer].count.load(MemoryOrder::kAcquire); }
  // Element `element` of complete tuple `tuple` (not yet released by the caller), a contiguous view.
  Tensor element(uint64_t tuple, unsigned element) const;
  // `consumer` is done with its next tuple.
  void release(unsigned consumer);
  // The totals to grant now.
  InfeedCredits credits() const;
  // Whether the queue failed (sticky), and why.
  bool failed() const { return failed_.load(MemoryOrder::kAcquire); }
  const Status& failure() const { return failure_; }

  // ---- credit messages: which core sends them
  // True if `granted_tuples` is more than any credit total claimed before (the caller sends it).
  bool claim_credits(uint32_t granted_tuples);
  // True if `granted_tuples` exceeds the total claimed before by at least a quarter of the slots (by
  // one tuple with fewer than 8 slots).
  bool credits_worth_sending(uint32_t granted_tuples) const {
    const uint32_t batch = slots_ >= 8 ? slots_ / 4 : 1;
    return granted_tuples - credits_claimed_.load(MemoryOrder::kRelaxed) >= batch;
  }
  // True at most once per `interval_ns` (a waiting consumer re-sends the credits then).
  bool claim_refresh(uint64_t now_ns, uint64_t interval_ns);

 private:
  struct alignas(kCacheLineSize) ConsumerCount {
    Atomic<uint64_t> count{0};
  };

  Status fail(const Status& reason);
  // What a chunk and the host's word on placed tuples are both checked for: the tuple's element
  // count, and an element's dtype and shape against the queue's.
  Status check_element_count(unsigned count) const;
  Status check_element_type(unsigned element, DType dtype, const Shape& shape) const;
  Status check_chunk(const QueueData& data) const;
  uint64_t min_released() const;
  uint8_t* slot(uint64_t tuple) const { return storage_ + (tuple % slots_) * slot_bytes_; }

  uint16_t queue_ = 0;
  StringView name_;
  unsigned element_count_ = 0;
  unsigned slots_ = 0;
  unsigned consumers_ = 0;
  InfeedElementSpec specs_[kMaxInfeedElements];
  uint64_t element_bytes_[kMaxInfeedElements] = {};
  size_t element_offsets_[kMaxInfeedElements] = {};
  size_t slot_bytes_ = 0;
  uint64_t tuple_bytes_ = 0;
  uint8_t* storage_ = nullptr;

  // Receiver state (one core at a time).
  uint64_t receiving_ = 0;       // the tuple being received
  unsigned next_element_ = 0;    // its element the next chunk belongs to
  uint64_t next_offset_ = 0;     // and that chunk's byte offset
  uint64_t partial_bytes_ = 0;

  Atomic<uint64_t> complete_{0};
  ConsumerCount released_[kMaxInfeedConsumers];
  Atomic<uint32_t> credits_claimed_{0};
  Atomic<uint64_t> last_refresh_ns_{0};
  Atomic<bool> failed_{false};
  Status failure_;
};

}  // namespace rt::link
