// The Exchange progress engine: round-robin over pending sends and receives, sleeping on the
// doorbell (mailbox::wait_for_progress) only when no operation could move.
#include "exchange.hpp"

#include <string.h>

#include "cancellation.hpp"
#include "hal/time.hpp"
#include "runtime/mailbox/mailbox.hpp"
#include "hal/support/new.hpp"
#include "hal/support/utility.hpp"
#include "runtime/sync/stall_timer.hpp"
#include "runtime/trace/core_status.hpp"

namespace rt {
namespace {

constexpr size_t kHeaderBytes = 16;
constexpr size_t kPadding = 8;
const uint8_t kZeros[kPadding] = {};

size_t padded(size_t bytes) { return (bytes + kPadding - 1) & ~(kPadding - 1); }

void encode_header(uint8_t* header, CollectiveKind kind, uint32_t sequence, uint64_t bytes) {
  const uint32_t kind_word = static_cast<uint32_t>(kind);
  __builtin_memcpy(header, &kind_word, 4);
  __builtin_memcpy(header + 4, &sequence, 4);
  __builtin_memcpy(header + 8, &bytes, 8);
}

struct DecodedHeader {
  uint32_t kind;
  uint32_t sequence;
  uint64_t bytes;
};

DecodedHeader decode_header(const uint8_t* header) {
  DecodedHeader decoded;
  __builtin_memcpy(&decoded.kind, header, 4);
  __builtin_memcpy(&decoded.sequence, header + 4, 4);
  __builtin_memcpy(&decoded.bytes, header + 8, 8);
  return decoded;
}

}  // namespace

const char* collective_kind_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return "all_reduce";
    case CollectiveKind::kAllGather: return "all_gather";
    case CollectiveKind::kReduceScatter: return "reduce_scatter";
    case CollectiveKind::kAllToAll: return "all_to_all";
    case CollectiveKind::kCollectivePermute: return "collective_permute";
    case CollectiveKind::kBroadcast: return "broadcast";
    case CollectiveKind::kBarrier: return "barrier";
  }
  return "unknown collective";
}

Exchange::Exchange(CollectiveKind kind, uint32_t sequence) : kind_(kind), sequence_(sequence), me_(hal::core_id()) {}

void Exchange::send(unsigned peer, const StridedBytes& source) {
  SendOp& op = *new (&sends_.ops[send_count_++]) SendOp;
  op.peer = peer;
  op.source = source;
  encode_header(op.header, kind_, sequence_, source.total());
  op.total = kHeaderBytes + padded(source.total());
  op.done = 0;
}

void Exchange::receive(unsigned peer, size_t bytes, Sink sink) {
  ReceiveOp& op = *new (&receives_.ops[receive_count_++]) ReceiveOp{};
  op.peer = peer;
  op.bytes = bytes;
  op.sink = sink;
}

void Exchange::local(const StridedBytes& source, Sink sink) {
  receive(kLocal, source.total(), sink);
  receives_.ops[receive_count_ - 1].local_source = source;
}

// Writes as much of the message as the ring takes now. Returns whether any byte moved. The first
// write carries the header together with the start of the payload (and the padding, for a short
// one): one cell, so a small message (up to 40 payload bytes: buffer addresses, a signal) costs
// the receiver one cache-line transfer. The byte stream is the same however it is cut into cells.
bool Exchange::progress_send(SendOp& op) {
  SpscRing& ring = mailbox::ring(me_, op.peer);
  const size_t payload = op.source.total();
  const size_t start = op.done;
  if (op.done == 0) {
    uint8_t first[SpscRing::kCellPayload];
    const size_t length = min(op.total, sizeof(first));
    if (ring.writable(length) < length) return false;  // all of it in one cell, or nothing yet
    const size_t carried = min(payload, length - kHeaderBytes);
    __builtin_memcpy(first, op.header, kHeaderBytes);
    op.source.gather(0, first + kHeaderBytes, carried);
    __builtin_memset(first + kHeaderBytes + carried, 0, length - kHeaderBytes - carried);
    op.done = ring.write_some(first, length);
  }
  while (op.done < op.total) {
    size_t written;
    if (op.done < kHeaderBytes + payload) {
      const size_t offset = op.done - kHeaderBytes;
      const size_t row = offset / op.source.row_bytes;
      const size_t within = offset % op.source.row_bytes;
      written = ring.write_some(op.source.base + row * op.source.stride + within, op.source.row_bytes - within);
    } else {
      written = ring.write_some(kZeros, op.total - op.done);
    }
    if (written == 0) break;
    op.done += written;
  }
  if (op.done == start) return false;
  notify_mask_ |= 1u << op.peer;
  return true;
}

Status Exchange::progress_receive(ReceiveOp& op, bool& progressed) {
  if (op.peer == kLocal) {
    // Local contribution: delivered whole, in chunks so sinks see the same shapes as remote data.
    uint8_t buffer[512];
    for (size_t offset = 0; offset < op.bytes; offset += sizeof(buffer)) {
      const size_t count = min(sizeof(buffer), op.bytes - offset);
      op.local_source.gather(offset, buffer, count);
      op.sink.consume(buffer, offset, count);
    }
    op.finished = progressed = true;
    return Status::ok();
  }
  SpscRing& ring = mailbox::ring(op.peer, me_);
  const size_t total = kHeaderBytes + padded(op.bytes);
  const size_t start = op.done;
  while (op.done < total) {
    if (op.done < kHeaderBytes) {
      op.done += ring.read_some(op.header + op.done, kHeaderBytes - op.done);
      if (op.done < kHeaderBytes) break;
      const DecodedHeader got = decode_header(op.header);
      if (got.kind != static_cast<uint32_t>(kind_) || got.sequence != sequence_ || got.bytes != op.bytes)
        return Status::error(StatusCode::kInvalidArgument,  // the program's mismatch, as the descriptions' checks say
                             "core {}: collective mismatch with core {}: expected {} #{} of {} bytes, received {} #{} "
                             "of {} bytes (cores called different collectives or sizes)",
                             me_, op.peer, collective_kind_name(kind_), sequence_, op.bytes,
                             collective_kind_name(static_cast<CollectiveKind>(got.kind)), got.sequence, got.bytes);
      continue;
    }
    const Span<const uint8_t> run = ring.readable_run();
    if (run.empty()) break;
    const size_t count = min(run.size(), total - op.done);
    const size_t payload_offset = op.done - kHeaderBytes;
    if (payload_offset < op.bytes)
      op.sink.consume(run.data(), payload_offset, min(count, op.bytes - payload_offset));
    ring.consume(count);
    op.done += count;
  }
  if (op.done != start) {
    progressed = true;
    notify_mask_ |= 1u << op.peer;  // space freed for the sender
  }
  op.finished = op.done == total;
  return Status::ok();
}

bool Exchange::everything_finished() const {
  for (unsigned i = 0; i < send_count_; ++i)
    if (pending(sends_.ops[i])) return false;
  for (unsigned i = 0; i < receive_count_; ++i)
    if (!receives_.ops[i].finished) return false;
  return true;
}

// Whether some pending operation could move now (used to decide whether to sleep).
bool Exchange::anything_ready() const {
  for (unsigned i = 0; i < send_count_; ++i)
    if (pending(sends_.ops[i]) && mailbox::ring(me_, sends_.ops[i].peer).writable(kPadding) >= kPadding) return true;
  for (unsigned i = 0; i < receive_count_; ++i) {
    const ReceiveOp& op = receives_.ops[i];
    if (op.finished) continue;
    if (op.peer == kLocal || mailbox::ring(op.peer, me_).has_data()) return true;
  }
  return false;
}

// The first peer, of the unfinished receives and then the unfinished sends, for which `matches`
// holds; trace::kNoPeer if none.
template <class Predicate>
uint32_t Exchange::first_peer_where(Predicate matches) const {
  for (unsigned i = 0; i < receive_count_; ++i)
    if (waits_on_peer(receives_.ops[i]) && matches(receives_.ops[i].peer)) return receives_.ops[i].peer;
  for (unsigned i = 0; i < send_count_; ++i)
    if (pending(sends_.ops[i]) && matches(sends_.ops[i].peer)) return sends_.ops[i].peer;
  return trace::kNoPeer;
}

// The first peer this exchange still waits for; trace::kNoPeer if none.
uint32_t Exchange::outstanding_peer() const {
  return first_peer_where([](unsigned) { return true; });
}

// The first peer this exchange still waits for that left the launch (cancellation.hpp).
uint32_t Exchange::peer_that_left() const { return first_peer_where(left_launch); }

Status Exchange::run(uint64_t timeout_ns) {
  StallTimer stall(timeout_ns);  // bounds a stall, not the whole transfer
  trace::WaitMark wait;  // marked in the core's status record only once it sleeps
  while (!everything_finished()) {
    bool progressed = false;
    for (unsigned i = 0; i < send_count_; ++i)
      if (pending(sends_.ops[i]) && progress_send(sends_.ops[i])) progressed = true;
    for (unsigned i = 0; i < receive_count_; ++i) {
      ReceiveOp& op = receives_.ops[i];
      if (op.finished) continue;
      const Status status = progress_receive(op, progressed);
      if (!status.is_ok()) {
        mailbox::notify_cores(notify_mask_);
        return status;
      }
    }
    if (notify_mask_ != 0) {  // before this core waits or returns: peers may sleep on what it did
      mailbox::notify_cores(notify_mask_);
      notify_mask_ = 0;
    }
    if (progressed) {
      stall.progressed();
      continue;
    }
    // A peer it waits for left the launch with an error: its data will not come (unless it is there).
    if (const uint32_t peer = peer_that_left(); peer != trace::kNoPeer && !anything_ready())
      return cancelled_error(peer);
    if (mailbox::poll_briefly([this] { return anything_ready(); })) continue;  // before the clock
    if (stall.expired()) {
      wait.gave_up();
      return timeout_error(timeout_ns);
    }
    wait.mark(me_, trace::collective_activity(static_cast<uint32_t>(kind_), collective_kind_name(kind_), sequence_,
                                              outstanding_peer()));
    mailbox::wait_for_progress([this] { return anything_ready() || peer_that_left() != trace::kNoPeer; },
                               stall.deadline_ns());
  }
  return Status::ok();
}

Status Exchange::cancelled_error(unsigned peer) const {
  FixedString<40> what;
  format_to(what, "{} #{}", collective_kind_name(kind_), sequence_);
  return cancelled_waiting_for(peer, what.view());
}

Status Exchange::timeout_error(uint64_t timeout_ns) const {
  FixedString<200> outstanding;  // " receiving ... (n arrived); sending ... (n taken)"
  const char* separator = "";
  for (unsigned i = 0; i < receive_count_; ++i) {
    const ReceiveOp& op = receives_.ops[i];
    if (!waits_on_peer(op)) continue;
    format_to(outstanding, "{} receiving {} bytes from core {} ({} arrived)", separator, op.bytes, op.peer,
              op.done > kHeaderBytes ? min(op.done - kHeaderBytes, op.bytes) : 0);
    separator = ";";
  }
  for (unsigned i = 0; i < send_count_; ++i) {
    const SendOp& op = sends_.ops[i];
    if (!pending(op)) continue;
    format_to(outstanding, "{} sending {} bytes to core {} ({} taken)", separator, op.source.total(), op.peer,
              op.done > kHeaderBytes ? op.done - kHeaderBytes : 0);
    separator = ";";
  }
  return deadline_exceeded("core {} timed out after {} ms in {} #{}:{}", me_,
                           timeout_ns / hal::kNanosPerMilli, collective_kind_name(kind_), sequence_, outstanding);
}

}  // namespace rt
