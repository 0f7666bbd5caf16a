// The shared-memory host link: a window of the board's RAM that `tpu` maps too (QEMU runs the
// guest's RAM from a file with share=on), holding a control block and two single-producer /
// single-consumer rings of records, one per direction. Each record carries one link frame body
// exactly as frame.hpp defines it (header | payload | CRC-32) but without COBS: memory needs no
// delimiters, and the CRC still catches a torn or corrupted record. The same message kinds as on
// the UART travel this way; only the framing differs. HAL-free: the board (firmware/) and the host
// tool (host-tools/) both use this file, each with its own pointer to the window.
//
// Window layout (offsets from the window's start, little-endian, both sides 64-bit):
//   0                ShmControl (one page): magic, version, where the rings are, the peers' states
//   to_board.offset  ShmRingIndices (128 bytes) then to_board.capacity bytes of records
//   to_host.offset   the same for the board -> host direction
// The host writes the control block into the RAM file before QEMU starts (magic last), so the board
// sees it at boot; a window without the magic (make run, a real board) means "no shared-memory
// host": the board uses its UART.
//
// A ring. `head` counts the bytes the producer has published, `tail` the bytes the consumer has
// released; both only grow (64-bit, never wrap in practice), each is written by one side only and
// sits on its own cache line. A record at position p (p % capacity, 8-byte aligned) is
//   u32 length   body bytes (kPadLength: nothing more fits before the end, continue at offset 0)
//   u32 check    length ^ kRecordKey ^ low 32 bits of p (a stale or garbage header fails this)
//   body         length bytes, then zero padding to a multiple of 8
// A record never wraps around the end of the data area: if it does not fit there, the producer
// writes a pad record and starts again at offset 0.
//
// Memory ordering. The producer writes the record's bytes with plain stores, then stores head with
// release ordering; the consumer loads head with acquire ordering before reading any record byte,
// and stores tail with release ordering only after it is done with the record (the producer loads
// tail with acquire before reusing the space). On the board these are AArch64 STLR/LDAR or RISC-V
// fences around plain accesses; QEMU's multi-threaded TCG translates them into host barriers around
// the guest's accesses to the RAM file, and on the host they are x86 (TSO) or Arm host atomics on the
// same mapping, so a host acquire load of head observes every guest store made before the release.
//
// Results in place. A host call's tensor results can skip the rings: before it sends the request,
// the calling core arms its ShmReplyTarget (the call id and each result's address and size in the
// board's memory); the host, when it replies, claims the target (armed -> writing, a compare-and-
// swap), copies each result that fits its target exactly straight into board memory, marks the
// target written and then sends a small kHostCallReplyInPlace frame per such result (the ring's
// release/acquire orders the bytes before the frame). A call that ends first (timeout) disarms its
// target (armed -> idle); if the host is writing at that moment the core waits for "written", so a
// late reply never lands in a buffer the caller already reused. The host writes only inside the
// aperture the board announced (its tensor memory), after checking every range against it.
//
// Infeed in place. When a replica program opens an infeed queue, the board publishes the queue's slot
// memory in the control block (ShmInfeedTarget). The host then writes each tuple the credits allow
// straight into its slot (tuple t in slot t % slots, each element at its offset: exactly where the
// replicas dequeue from) and sends a small kInfeedInPlace frame naming the tuple; the board checks it
// is the next tuple and within the credits, and marks it complete. Credits make this safe exactly as
// for infeed frames: a slot is only written after every replica released the tuple before in it.
//
// Waking. Two doorbells in the control block, one each way: a count the ringing side bumps and how
// many waiters sleep on it. A waiter with nothing to do notes the count, looks once more, and sleeps
// while the count is unchanged (bounded by its own deadline); the ringer, finding sleepers, wakes
// them. The board's bell (board_bell) is rung by the host after it published something for the board
// (a record, and so a placed result or infeed tuple), and by a board core that took frames its peers
// wait for or let go of the receive lock one of them waits for: everything a board core waits for
// rings it, so a core's sleep on it ends when its wait does. The host's bell (host_bell) is rung by a
// board core once per wait, when it first sleeps waiting for the host (a host-call reply, infeed,
// room in the ring): the host is then the one with work to do, and a host asleep between polls takes
// the request at once instead of at its next poll. Not on every frame: a wake-up syscall for each
// frame a core sends (detached reports, credits) cost the training step more than the host's polls,
// measured on a 2-vCPU VM (host calls 2-3% of the step without, 6-20% with). One exception: where
// the host board's cores take every CPU (hal::link_host_shares_cpus), tpu does not poll from 10 us
// but sleeps until rung or 2 ms have passed (each of its wake-ups preempts a core), so a batch of
// infeed credits (a frame per quarter of the queue's slots: 16 tuples of 64) rings it too
// (LinkPort::host_has_work). The host, having taken records, rings the board's bell only while a
// core counts itself as waiting for room (cores_waiting_for_room): a host call's request, taken
// while its sender sleeps for the reply, would otherwise wake it once for nothing (a cross-board
// 4-byte sum woke its core twice per call on the host board; 43 -> 27 us a call without).
// On the host board both sleeps are futexes on the shared page; a QEMU guest can neither be woken
// from outside nor wake the host, so there both sides keep their timed polls and only the counts move.
//
// Trust. The reader checks everything it takes from the window before using it: indices (the
// peer may write garbage), the record header, the length against the ring and the published bytes.
// A violation is a fault (sticky): the reader says what is wrong and never reads outside the data
// area. The host copies each record out of the window before parsing it, so a board that keeps
// writing cannot change a record after it was checked.
#pragma once
#include "frame.hpp"
#include "hal/support/atomic.hpp"

namespace rt::link {

inline constexpr uint64_t kShmMagic = 0x31304d4853555054ull;  // "TPUSHM01"
inline constexpr uint32_t kShmVersion = 4;  // 2: the board's doorbell; 3: the host's; 4: room waiters
inline constexpr uint32_t kShmControlBytes = 4096;
inline constexpr uint32_t kPadLength = 0xFFFFFFFFu;
inline constexpr uint32_t kRecordKey = 0x5EC0AD5Eu;
inline constexpr size_t kRecordHeaderBytes = 8;

// Where a ring lives in the window.
struct ShmRingPlace {
  uint32_t offset = 0;    // of its ShmRingIndices, from the window start; 64-byte aligned
  uint32_t capacity = 0;  // bytes of record space after the indices; a power of two, >= 4 KiB
};

// What the board does with the window (ShmControl::board_state).
enum class ShmBoardState : uint32_t {
  kNotSeen = 0,   // the board has not looked yet (or has no link service)
  kAttached = 1,  // the board took the rings as its host link
  kFinished = 2,  // the board's link service finished (its last frames are in the ring)
};

// What the host does (ShmControl::host_state).
enum class ShmHostState : uint32_t {
  kOpen = 1,    // tpu is serving the link
  kClosed = 2,  // tpu stopped serving (it exits; the board's waits for it fail at once)
};

inline constexpr unsigned kShmMaxCores = 16;
inline constexpr unsigned kShmMaxTargets = 6;  // results of one host call that can be placed directly
inline constexpr unsigned kShmMaxInfeedQueues = 4;
inline constexpr unsigned kShmMaxInfeedElements = 8;

// A core's armed host-call result destinations (see "Results in place").
enum class ShmTargetState : uint32_t {
  kIdle = 0,
  kArmed = 1,    // the board set the targets for call_id (and waits for the reply)
  kWriting = 2,  // the host claimed them and is copying results into board memory
  kWritten = 3,  // the host is done with them (the reply frames follow)
};

struct alignas(64) ShmReplyTarget {
  uint32_t state;    // ShmTargetState, atomically
  uint32_t call_id;
  uint32_t count;    // entries below (<= kShmMaxTargets); address 0 = that result has no target
  uint32_t reserved;
  uint64_t address[kShmMaxTargets];  // in the board's address space
  uint64_t bytes[kShmMaxTargets];
};

// An open infeed queue's slot memory (see "Infeed in place"), written by the board when it opens the
// queue (state 1, release) and withdrawn (state 0) before it closes it. The host holds an open entry
// (1 -> 2, acquire) for as long as it reads the fields and writes a tuple into the slots, and gives it
// back (2 -> 1, release); the board withdraws only an entry it takes from 1 to 0, waiting while the
// host writes (bounded: a host that died mid-copy), so a closed queue's memory is never written.
struct alignas(64) ShmInfeedTarget {
  uint32_t state;  // 0 none, 1 open, 2 open and the host writing a tuple
  uint16_t queue;  // the link queue
  uint8_t element_count;
  uint8_t reserved;
  uint32_t slots;
  uint32_t reserved2;
  uint64_t storage_address;  // slot s starts at storage_address + s * slot_bytes (board addresses)
  uint64_t slot_bytes;
  uint64_t element_offset[kShmMaxInfeedElements];  // within a slot
  uint64_t element_bytes[kShmMaxInfeedElements];
};

// A doorbell (see "Waking"): both fields are read and written atomically by both sides.
struct alignas(64) ShmDoorbell {
  uint32_t rings;     // bumped by each ring
  uint32_t sleepers;  // the waiters asleep on `rings`
};

struct ShmControl {
  uint64_t magic;    // kShmMagic once the host set the window up
  uint32_t version;  // kShmVersion
  uint32_t window_bytes;
  ShmRingPlace to_board;
  ShmRingPlace to_host;
  uint32_t reserved[2];
  alignas(64) uint32_t board_state;  // ShmBoardState, written by the board (atomically: below)
  alignas(64) uint32_t host_state;   // ShmHostState, written by the host
  // Written by the board before it sets board_state to attached: its address of the window's first
  // byte, and the aperture (its tensor memory) the host may place host-call results into.
  alignas(64) uint64_t window_address;
  uint64_t aperture_address;
  uint64_t aperture_bytes;
  ShmReplyTarget targets[kShmMaxCores];  // one per core
  ShmInfeedTarget infeed[kShmMaxInfeedQueues];
  // Written by the board before it sets board_state to attached (0: none): where its per-core status
  // table lies (runtime/trace/core_status.hpp), for tpu's hang triage and `tpu run --watch`. Only
  // read, never trusted: tpu checks the table's magic, version and sizes, and every address against
  // the RAM it maps.
  alignas(64) uint64_t core_status_address;
  uint64_t core_status_bytes;
  ShmDoorbell board_bell;  // rung when something a board core may wait for happened (see "Waking")
  ShmDoorbell host_bell;   // rung by a board core when it starts waiting for the host
  alignas(64) uint32_t cores_waiting_for_room;  // in the to-host ring: the host rings board_bell for them
};
static_assert(sizeof(ShmControl) <= kShmControlBytes, "the control block fits its page");

// The peers' states are read and written atomically (release/acquire): each side polls the other's.
inline ShmBoardState shm_board_state(const ShmControl& control) {
  return static_cast<ShmBoardState>(__atomic_load_n(&control.board_state, __ATOMIC_ACQUIRE));
}
inline void set_shm_board_state(ShmControl& control, ShmBoardState state) {
  __atomic_store_n(&control.board_state, static_cast<uint32_t>(state), __ATOMIC_RELEASE);
}
inline ShmHostState shm_host_state(const ShmControl& control) {
  return static_cast<ShmHostState>(__atomic_load_n(&control.host_state, __ATOMIC_ACQUIRE));
}
inline void set_shm_host_state(ShmControl& control, ShmHostState state) {
  __atomic_store_n(&control.host_state, static_cast<uint32_t>(state), __ATOMIC_RELEASE);
}
inline ShmTargetState shm_target_state(const ShmReplyTarget& target) {
  return static_cast<ShmTargetState>(__atomic_load_n(&target.state, __ATOMIC_ACQUIRE));
}
inline void set_shm_target_state(ShmReplyTarget& target, ShmTargetState state) {
  __atomic_store_n(&target.state, static_cast<uint32_t>(state), __ATOMIC_RELEASE);
}
// from -> to if the state is `from`; false (nothing changed) otherwise.
inline bool move_shm_target_state(ShmReplyTarget& target, ShmTargetState from, ShmTargetState to) {
  uint32_t expected = static_cast<uint32_t>(from);
  return __atomic_compare_exchange_n(&target.state, &expected, static_cast<uint32_t>(to), false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE);
}

// Rings `bell`; true if it has sleepers to wake (the ringer's futex wake).
inline bool ring_shm_doorbell(ShmDoorbell& bell) {
  __atomic_add_fetch(&bell.rings, 1u, __ATOMIC_SEQ_CST);
  return __atomic_load_n(&bell.sleepers, __ATOMIC_SEQ_CST) != 0;
}
// A core that found the to-host ring full counts itself before it looks again (and then may sleep on
// board_bell); the host, having taken records, rings board_bell only if some core is counted. The
// two sides' store-then-load steps are fenced, so either the core sees the room or the host sees it
// and rings. The core's sleep must compare the bell with its rings as counted before that look (the
// firmware's port keeps them from its last sleep), so that a ring between the look and the sleep
// ends it.
inline void begin_room_wait(ShmControl& control) {
  __atomic_add_fetch(&control.cores_waiting_for_room, 1u, __ATOMIC_SEQ_CST);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
inline void end_room_wait(ShmControl& control) { __atomic_sub_fetch(&control.cores_waiting_for_room, 1u, __ATOMIC_SEQ_CST); }
inline bool cores_wait_for_room(const ShmControl& control) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return __atomic_load_n(&control.cores_waiting_for_room, __ATOMIC_SEQ_CST) != 0;
}
inline uint32_t shm_doorbell_rings(const ShmDoorbell& bell) { return __atomic_load_n(&bell.rings, __ATOMIC_SEQ_CST); }
// Sleeps with `sleep(&bell.rings, seen)` (which returns once the word differs from `seen`, when
// woken or at its own deadline) unless the bell rang since `seen`; counted as a sleeper meanwhile,
// so a publisher that rings after the check wakes it (the two sequentially consistent steps cross).
template <class Sleep>
void sleep_on_shm_doorbell(ShmDoorbell& bell, uint32_t seen, Sleep sleep) {
  __atomic_add_fetch(&bell.sleepers, 1u, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&bell.rings, __ATOMIC_SEQ_CST) == seen) sleep(&bell.rings, seen);
  __atomic_sub_fetch(&bell.sleepers, 1u, __ATOMIC_SEQ_CST);
}

struct ShmRingIndices {
  alignas(64) Atomic<uint64_t> head;  // published bytes (producer)
  alignas(64) Atomic<uint64_t> tail;  // released bytes (consumer)
};
static_assert(sizeof(ShmRingIndices) == 128, "indices take two cache lines");

// Record bytes a body of `body_bytes` takes in a ring (header and padding included).
constexpr uint64_t shm_record_bytes(uint64_t body_bytes) { return kRecordHeaderBytes + ((body_bytes + 7) & ~uint64_t{7}); }

// The largest frame body a ring of `capacity` bytes takes (a record never exceeds half the ring,
// so one always fits once the consumer caught up, even behind a pad record).
constexpr uint64_t shm_max_body(uint32_t capacity) { return capacity / 2 - kRecordHeaderBytes; }

// Checks a control block read from a window of `window_bytes`: magic, version, ring places inside
// the window, not overlapping each other or the control block. OK means the rings may be used.
Status check_shm_control(const ShmControl& control, size_t window_bytes);

// Lays out a control block for a window of `window_bytes` (the host does this before the boot):
// both rings as large as the window allows (powers of two; to_board gets the larger share).
// Errors: a window too small for two 8 KiB rings.
Result<ShmControl> plan_shm_window(size_t window_bytes);

// The producer end of one ring.
class ShmRingWriter {
 public:
  ShmRingWriter() = default;
  // `window` is the whole window (checked with check_shm_control), `place` one of its rings.
  void attach(uint8_t* window, const ShmRingPlace& place);

  // The largest body write() takes.
  uint64_t max_body() const { return shm_max_body(capacity_); }
  // Room for a record of `body_bytes` now? (Loads the consumer's tail when the cached one is short.)
  // A fault if the consumer's tail is impossible (ahead of head, or more than a ring behind).
  Result<bool> has_room(uint64_t body_bytes);
  // Writes one record whose body is the concatenation of `parts` (has_room must have said yes for
  // their total) and publishes it.
  void write(Span<const uint8_t> part0, Span<const uint8_t> part1 = {}, Span<const uint8_t> part2 = {});
  // Bytes published and not yet released by the consumer (as last seen).
  uint64_t pending() const { return head_ - cached_tail_; }

 private:
  uint8_t* at(uint64_t position) const { return data_ + (position & (capacity_ - 1)); }

  ShmRingIndices* indices_ = nullptr;
  uint8_t* data_ = nullptr;
  uint32_t capacity_ = 0;
  uint64_t head_ = 0;         // what we published (ours: never read back from the window)
  uint64_t cached_tail_ = 0;  // the consumer's tail as last loaded
};

// The consumer end of one ring.
class ShmRingReader {
 public:
  ShmRingReader() = default;
  void attach(uint8_t* window, const ShmRingPlace& place);

  // The next record's body, in place in the window (valid until release()); a span with a null data
  // pointer if none is published (a published 0-byte record has a non-null one); a fault (and from
  // then on always that fault) if the ring is corrupt.
  Result<Span<const uint8_t>> peek();
  // Done with the body peek() returned: its space goes back to the producer.
  void release();
  bool faulted() const { return !fault_.is_ok(); }
  uint64_t released() const { return tail_; }

 private:
  Status fail(const Status& reason);
  Result<Span<const uint8_t>> read_record(uint64_t published);

  ShmRingIndices* indices_ = nullptr;
  uint8_t* data_ = nullptr;
  uint32_t capacity_ = 0;
  uint64_t tail_ = 0;     // what we released (ours)
  uint64_t pending_ = 0;  // bytes of the peeked record (pad included), 0 if none
  Status fault_;
};

}  // namespace rt::link
