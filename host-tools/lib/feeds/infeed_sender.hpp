// InfeedSender: the host side of infeed. Streams each InfeedDataset (infeed_dataset.hpp) to its
// board queue as the board's credits allow, and measures the rate.
//
// Protocol (the board side is runtime/link/protocol/infeed_buffer.hpp): the board grants credits per queue as
// totals since the queue was opened (kInfeedCredits: granted_tuples, granted_bytes). The sender keeps
// the largest totals it saw (credits may arrive late, twice or reordered) and sends the next tuple
// only while tuples_sent < granted_tuples and bytes_sent + tuple_bytes <= granted_bytes (the first
// tuple needs only the tuple credit: may_send); before the first credits of a queue it sends
// nothing. A tuple goes out as kInfeedData messages on channel 0: element by element, each in chunks
// at ascending offsets (as many bytes per frame as fit).
//
// Credits are untrusted input: a credit frame on another channel, for a queue without a dataset, or
// with totals smaller than before is noted (once per kind) and changes nothing; absurdly large totals
// only let the dataset go out, which is finite. Nothing a board sends can crash the sender.
//
// In a pod (TPU per-host input) each board's tpu streams its board's part of every tuple, cut along
// the dimension the board's first credits name for each element (InfeedCredits::cut_dimensions): a
// dataset that is the pod's (InfeedDataset::set_pod_part) is split then; one that does not split
// is a fatal error (fatal_error()), since the board would wait for data that never comes.
//
// Rate: from the first tuple sent to the moment the board's credits show every tuple consumed (the
// first grant is the board's slot count; later grants are slots + tuples consumed), or to the last
// send if that never happens. The board sends a queue's final credits when it closes it
// (InfeedCredits::closed), so the last batch of consumption is counted too; nothing more is sent
// on a closed queue. progress() prints a line per second while tuples are in flight and the counts
// moved since its last line (a stalled run prints none; its timeout's triage says why). "Consumed"
// counts the tuples whose slots the board released: a replica dequeuing in place holds its tuple
// until its next dequeue, so the count trails the steps by one tuple while the queue is open.
#pragma once
#include <chrono>
#include <functional>
#include <span>
#include <optional>
#include <ostream>
#include <utility>
#include <vector>

#include "infeed_dataset.hpp"
#include "runtime/link/protocol/message.hpp"

namespace tpu {

class InfeedSender {
 public:
  using Clock = std::chrono::steady_clock;
  using SendFrame = std::function<void(rt::link::MessageKind kind, uint16_t channel, rt::Span<const uint8_t> payload)>;

  InfeedSender(std::vector<InfeedDataset> datasets, SendFrame send, std::ostream& notes);
  // How large a frame payload may be (asked before each element; default: the UART frame's 4 KiB).
  void set_payload_limit(std::function<size_t()> limit) { payload_limit_ = std::move(limit); }
  // Writes a whole tuple straight into its slot on the board (shared memory) if it can, having
  // `fill` read each element from its file into the slot (the one copy of its bytes); the sender
  // then sends a kInfeedInPlace frame instead of the tuple's chunks.
  using FillElement = std::function<bool(size_t element, std::span<uint8_t> destination)>;
  using PlaceTuple = std::function<bool(uint16_t queue, uint64_t tuple, const std::vector<uint64_t>& element_bytes,
                                        const FillElement& fill)>;
  void set_placer(PlaceTuple placer) { placer_ = std::move(placer); }

  // Why the run cannot go on (a dataset the board's cut does not split), once it happened.
  const std::optional<std::string>& fatal_error() const { return fatal_error_; }
  // A credit message from the board (already parsed) on `channel`.
  void on_credits(unsigned channel, const rt::link::InfeedCredits& credits);
  // Sends every tuple the credits allow, at most `budget_bytes` of tensor data per call (at least one
  // tuple if any is allowed); returns the tensor bytes sent.
  uint64_t pump(uint64_t budget_bytes = uint64_t{4} << 20);
  // One progress line on the notes stream per `interval` while a queue is streaming.
  void progress(Clock::time_point now, Clock::duration interval = std::chrono::seconds(1));
  // Per queue: tuples sent and consumed, bytes, seconds and the rate (tuples/s, MB/s).
  void report() const;

  bool empty() const { return queues_.empty(); }
  const InfeedDataset* dataset(uint16_t queue) const;
  uint64_t tuples_sent(uint16_t queue) const;
  uint64_t tuples_consumed(uint16_t queue) const;
  uint64_t ignored_credits() const { return ignored_credits_; }

 private:
  struct Queue {
    InfeedDataset dataset;
    bool granted = false;
    bool failed = false;  // a step could not be read: nothing more goes out
    bool closed = false;  // the board closed the queue (its final credits): nothing more goes out
    bool spec_sent = false;  // kInfeedSpec sent: the board checks the dtypes and shapes of in-place tuples
    uint64_t first_grant = 0;  // the board's slot count
    uint64_t granted_tuples = 0;
    uint64_t granted_bytes = 0;
    uint64_t sent_tuples = 0;
    uint64_t sent_bytes = 0;
    std::optional<Clock::time_point> started, last_sent, all_consumed;
    std::optional<std::pair<uint64_t, uint64_t>> reported;  // (sent, consumed) of the last progress line
    uint64_t consumed() const;
  };

  Queue* find(uint16_t queue);
  bool may_send(const Queue& queue) const;
  void send_tuple(Queue& queue);
  bool place_tuple(Queue& queue, uint64_t step);  // true: in place (and announced unless it failed)
  void send_spec(Queue& queue);                   // kInfeedSpec for every element, once per queue
  void fail(Queue& queue, const std::string& error);
  // Sends one element of a tuple in chunks; "" or why it could not.
  std::string send_element(const Queue& queue, size_t element, rt::Span<const uint8_t> data);
  void note_once(unsigned& count, const std::string& text);

  std::vector<Queue> queues_;
  std::function<size_t()> payload_limit_;
  PlaceTuple placer_;
  std::vector<uint8_t> step_bytes_;  // one element of one step, read for frames
  SendFrame send_;
  std::ostream& notes_;
  Clock::time_point last_progress_{};
  uint64_t ignored_credits_ = 0;
  unsigned wrong_channel_notes_ = 0, unknown_queue_notes_ = 0, shrinking_notes_ = 0;
  std::optional<std::string> fatal_error_;
};

}  // namespace tpu
