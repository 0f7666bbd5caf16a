// Storage for the mailbox mesh (kMaxCores^2 rings, about 4 MiB) and the per-core sleep flags.
#include "mailbox.hpp"

#include "runtime/sync/stall_timer.hpp"
#include "runtime/trace/core_status.hpp"

namespace rt::mailbox {
namespace {

SpscRing rings[hal::kMaxCores][hal::kMaxCores];

struct alignas(kCacheLineSize) SleepFlag {
  Atomic<uint32_t> sleeping{0};
};
SleepFlag sleep_flags[hal::kMaxCores];

}  // namespace

SpscRing& ring(unsigned from, unsigned to) { return rings[from][to]; }

namespace {

void wake_if_sleeping(unsigned peer) {
  if (sleep_flags[peer].sleeping.load(MemoryOrder::kRelaxed) != 0) hal::doorbell_ring(peer);
}

}  // namespace

void notify(unsigned peer) {
  atomic_fence(MemoryOrder::kSeqCst);  // order the index store before reading the peer's flag
  wake_if_sleeping(peer);
}

void notify_cores(uint32_t cores) {
  if (cores == 0) return;
  atomic_fence(MemoryOrder::kSeqCst);  // order the index stores before reading the peers' flags
  for (; cores != 0; cores &= cores - 1) wake_if_sleeping(static_cast<unsigned>(__builtin_ctz(cores)));
}

namespace {

// What a ring takes (or gives) now, notifying the peer if anything moved.
size_t send_some(SpscRing& wire, unsigned to, const void* data, size_t bytes) {
  const size_t sent = wire.write_some(data, bytes);
  if (sent != 0) notify(to);
  return sent;
}

size_t receive_some(SpscRing& wire, unsigned from, void* out, size_t bytes) {
  const size_t received = wire.read_some(out, bytes);
  if (received != 0) notify(from);
  return received;
}

}  // namespace

size_t try_send(unsigned to, const void* data, size_t bytes) {
  return send_some(ring(hal::core_id(), to), to, data, bytes);
}

size_t try_receive(unsigned from, void* out, size_t bytes) {
  return receive_some(ring(from, hal::core_id()), from, out, bytes);
}

namespace {

// Moves `bytes` with `step` (a ring write or read that notifies the peer), sleeping when stuck; the
// deadline restarts with every byte moved, so the timeout bounds a stall, not a long transfer.
// A stalled transfer polls briefly (poll_briefly) before it reads the clock.
template <class Step, class Ready>
Status transfer(Step step, Ready ready, size_t bytes, uint64_t timeout_ns, trace::MailboxDirection direction,
                unsigned peer) {
  const bool sending = direction == trace::MailboxDirection::kSend;
  const char* verb = sending ? "send" : "receive";
  const char* preposition = sending ? "to" : "from";
  size_t done = 0;
  StallTimer stall(timeout_ns);
  trace::WaitMark wait;  // marked in the core's status record only once it sleeps
  while (done < bytes) {
    const size_t moved = step(done);
    if (moved != 0) {
      done += moved;
      stall.progressed();
      continue;
    }
    if (poll_briefly(ready)) continue;
    if (stall.expired()) {
      wait.gave_up();
      return deadline_exceeded("core {} timed out after {} ms waiting to {} {} bytes {} core {} ({} done)",
                               hal::core_id(), timeout_ns / hal::kNanosPerMilli, verb, bytes, preposition, peer, done);
    }
    if (!wait.marked()) wait.mark(hal::core_id(), trace::mailbox_activity(direction, peer));
    wait_for_progress(ready, stall.deadline_ns());
  }
  return Status::ok();
}

}  // namespace

Status send(unsigned to, const void* data, size_t bytes, uint64_t timeout_ns) {
  const auto* source = static_cast<const uint8_t*>(data);
  SpscRing& wire = ring(hal::core_id(), to);
  return transfer([&](size_t done) { return send_some(wire, to, source + done, bytes - done); },
                  [&] { return wire.writable(1) > 0; }, bytes, timeout_ns, trace::MailboxDirection::kSend, to);
}

Status receive(unsigned from, void* out, size_t bytes, uint64_t timeout_ns) {
  auto* destination = static_cast<uint8_t*>(out);
  SpscRing& wire = ring(from, hal::core_id());
  return transfer([&](size_t done) { return receive_some(wire, from, destination + done, bytes - done); },
                  [&] { return wire.has_data(); }, bytes, timeout_ns, trace::MailboxDirection::kReceive, from);
}

namespace detail {

void announce_sleep(bool sleeping) {
  // seq_cst store + the fence in notify() form the Dekker pair described in mailbox.hpp.
  sleep_flags[hal::core_id()].sleeping.store(sleeping ? 1 : 0, MemoryOrder::kSeqCst);
  atomic_fence(MemoryOrder::kSeqCst);  // the flag store must precede the re-check's index loads
}

}  // namespace detail
}  // namespace rt::mailbox
