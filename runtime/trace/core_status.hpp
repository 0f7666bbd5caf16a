// Each core's status record: what the core is doing right now (running its app, blocked in a
// collective and on which peer, blocked on a mailbox peer, waiting for the host to answer a call,
// waiting for an infeed tuple, waiting for another core's launch, idle, done) and the last wait it
// gave up on. The runtime keeps it with plain stores at its wait points (no messages, no locks:
// each core writes only its own record), so a tool that can read the board's RAM sees where every
// core is stuck without the board's help: `tpu` reads it through the shared-memory link when a run
// times out and shows it live with `tpu run --watch` (host-tools/lib/triage/core_watch.hpp).
//
// Layout: one CoreStatusTable (a header with magic, version and sizes, then one record per core).
// The board announces its address in the shared-memory control block (shm_ring.hpp). Every field
// has a fixed width (every board here is 64-bit little-endian); a reader checks magic, version and
// sizes before it trusts anything, and bounds-checks every address it follows (the trace rings and
// their event names, trace_ring.hpp) against the memory it can read.
//
// Consistency: a record's `writes` count is odd while its core rewrites the record (a sequence
// lock with one writer): a copy taken between two equal, even readings of it is consistent, and a
// count that has not moved means the core has not changed what it does.
//
// Cost: a few stores to the core's own cache lines, only where a core is about to wait anyway (the
// collectives and mailbox streams mark a wait only once they stop spinning and go to sleep).
//
// Header-only and HAL-free, like trace_point.hpp: the one table is an inline variable and callers
// pass their core id (the link endpoint takes it from its port, the rest from hal::core_id()).
#pragma once
#include "hal/support/string_view.hpp"
#include "hal/support/types.hpp"

namespace rt::trace {

// What a core does (CoreActivity::state). Readers print values they do not know as numbers.
enum class CoreState : uint32_t {
  kNotStarted = 0,  // the record was never written: the core has not started its app
  kRunning = 1,     // running its app's code (no wait recorded)
  kCollective = 2,  // blocked in a collective: kind, sequence number, the peer it waits for
  kMailbox = 3,     // blocked sending to / receiving from a peer core (point-to-point stream)
  kHostCall = 4,    // waiting for the host to answer a call: function, call id (0: no host yet)
  kInfeed = 5,      // waiting for an infeed tuple: link queue and its name, tuple
  kAwaitCore = 6,   // waiting for core `peer` to finish a launch (replica, computation), or with no
                    // computation name, to start serving launches
  kIdle = 7,        // serving launches and waiting for the next one from `peer` (core 0)
  kDone = 8,        // its app returned (CoreStatusRecord::result_code)
};

enum class MailboxDirection : uint8_t { kNone = 0, kSend = 1, kReceive = 2 };

inline constexpr uint32_t kNoPeer = 0xFFFFFFFFu;
inline constexpr unsigned kStatusNameBytes = 32;  // names are cut to 31 characters and NUL-terminated

// One activity (what a core does, or the wait it last gave up on): 64 bytes.
struct CoreActivity {
  uint32_t state = 0;         // CoreState
  uint32_t peer = kNoPeer;    // the core it waits for
  uint32_t collective = 0;    // kCollective: CollectiveKind (collectives/exchange.hpp)
  uint32_t sequence = 0;      // kCollective: the collective's number on this core (#n in its errors);
                              // kAwaitCore: the replica
  uint32_t call_id = 0;       // kHostCall
  uint16_t infeed_queue = 0;  // kInfeed: the link queue
  uint8_t direction = 0;      // kMailbox: MailboxDirection
  uint8_t reserved = 0;
  uint64_t infeed_tuple = 0;  // kInfeed
  char name[kStatusNameBytes] = {};  // kCollective: its kind; kHostCall: the function (or, with call id 0,
                                     // what it waits for a host to do); kInfeed: the queue's name;
                                     // kAwaitCore: the computation
};
static_assert(sizeof(CoreActivity) == 64, "an activity is one cache line");

// Where a core's trace ring (trace_ring.hpp) lies in the board's address space, for a reader that
// wants its last events. record_bytes == 32: u64 begin_ns, u64 end_ns, u64 address of the event's
// NUL-terminated name, u8 trace Category (trace_point.hpp). All zero: no ring.
struct TraceRingPlace {
  uint64_t records_address = 0;  // record i at records_address + i * record_bytes
  uint64_t written_address = 0;  // u64: records ever written; the newest is (written - 1) % capacity
  uint32_t capacity = 0;
  uint32_t record_bytes = 0;
};

struct alignas(64) CoreStatusRecord {
  uint32_t writes = 0;          // odd while the core rewrites this record
  uint32_t result_code = 0;     // kDone: the app's StatusCode (0 OK)
  uint32_t waits_given_up = 0;  // waits that timed out
  uint32_t reserved = 0;
  CoreActivity now;             // what the core does
  CoreActivity gave_up;         // the last wait that timed out (state kNotStarted: none)
  TraceRingPlace trace;
};

inline constexpr uint64_t kCoreStatusMagic = 0x3130535453455243ull;  // "CRESTS01" in memory
inline constexpr uint32_t kCoreStatusVersion = 1;
inline constexpr unsigned kCoreStatusMaxCores = 16;
inline constexpr uint32_t kCoreStatusHeaderBytes = 64;

struct CoreStatusHeader {
  uint64_t magic;          // kCoreStatusMagic
  uint32_t version;        // kCoreStatusVersion
  uint32_t header_bytes;   // where records[0] starts (kCoreStatusHeaderBytes)
  uint32_t record_bytes;   // sizeof(CoreStatusRecord)
  uint32_t record_count;   // records in the table (kCoreStatusMaxCores)
  uint32_t cores;          // cores the board booted (0 until it knows)
  uint32_t reserved;
};

struct CoreStatusTable {
  alignas(64) CoreStatusHeader header;
  CoreStatusRecord records[kCoreStatusMaxCores];
};
static_assert(__builtin_offsetof(CoreStatusTable, records) == kCoreStatusHeaderBytes, "records follow the header");

// The board's table (each core writes its own record; the boot core fills in `cores` and the
// trace ring places).
inline CoreStatusTable core_status_table{
    {kCoreStatusMagic, kCoreStatusVersion, kCoreStatusHeaderBytes, sizeof(CoreStatusRecord), kCoreStatusMaxCores, 0, 0},
    {}};

// ---------------------------------------------------------------------------- writing

// The record of `core`; nullptr for a core beyond the table.
inline CoreStatusRecord* core_status(unsigned core) {
  return core < kCoreStatusMaxCores ? &core_status_table.records[core] : nullptr;
}

namespace detail {
inline void begin_status_update(CoreStatusRecord& record) {
  __atomic_store_n(&record.writes, __atomic_load_n(&record.writes, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);  // the odd count before any field
}
inline void end_status_update(CoreStatusRecord& record) {
  __atomic_store_n(&record.writes, __atomic_load_n(&record.writes, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
}
}  // namespace detail

// Copies at most kStatusNameBytes - 1 characters of `text` into `name`, NUL-terminated.
inline void set_status_name(char (&name)[kStatusNameBytes], StringView text) {
  size_t i = 0;
  for (; i < text.size() && i + 1 < kStatusNameBytes && text[i] != '\0'; ++i) name[i] = text[i];
  for (; i < kStatusNameBytes; ++i) name[i] = '\0';
}

// What core `core` does from now on.
inline void set_core_activity(unsigned core, const CoreActivity& activity) {
  CoreStatusRecord* record = core_status(core);
  if (record == nullptr) return;
  detail::begin_status_update(*record);
  record->now = activity;
  detail::end_status_update(*record);
}

// Core `core`'s app returned with `result_code` (a StatusCode).
inline void set_core_done(unsigned core, uint32_t result_code) {
  CoreStatusRecord* record = core_status(core);
  if (record == nullptr) return;
  detail::begin_status_update(*record);
  record->result_code = result_code;
  record->now = CoreActivity{};
  record->now.state = static_cast<uint32_t>(CoreState::kDone);
  detail::end_status_update(*record);
}

// Boot core: the number of cores booted, and where each core's trace ring lies.
inline void set_core_status_cores(unsigned cores) {
  __atomic_store_n(&core_status_table.header.cores, cores, __ATOMIC_RELEASE);
}
inline void set_trace_ring_place(unsigned core, const TraceRingPlace& place) {
  CoreStatusRecord* record = core_status(core);
  if (record == nullptr) return;
  detail::begin_status_update(*record);
  record->trace = place;
  detail::end_status_update(*record);
}

// The activities the wait points record.
inline CoreActivity running_activity() {
  CoreActivity activity;
  activity.state = static_cast<uint32_t>(CoreState::kRunning);
  return activity;
}
inline CoreActivity collective_activity(uint32_t kind, StringView kind_name, uint32_t sequence, uint32_t peer) {
  CoreActivity activity;
  activity.state = static_cast<uint32_t>(CoreState::kCollective);
  activity.collective = kind;
  activity.sequence = sequence;
  activity.peer = peer;
  set_status_name(activity.name, kind_name);
  return activity;
}
inline CoreActivity mailbox_activity(MailboxDirection direction, uint32_t peer) {
  CoreActivity activity;
  activity.state = static_cast<uint32_t>(CoreState::kMailbox);
  activity.direction = static_cast<uint8_t>(direction);
  activity.peer = peer;
  return activity;
}
inline CoreActivity host_call_activity(StringView function, uint32_t call_id) {
  CoreActivity activity;
  activity.state = static_cast<uint32_t>(CoreState::kHostCall);
  activity.call_id = call_id;
  set_status_name(activity.name, function);
  return activity;
}
inline CoreActivity infeed_activity(uint16_t queue, uint64_t tuple, StringView queue_name) {
  CoreActivity activity;
  activity.state = static_cast<uint32_t>(CoreState::kInfeed);
  activity.infeed_queue = queue;
  activity.infeed_tuple = tuple;
  set_status_name(activity.name, queue_name);
  return activity;
}
inline CoreActivity await_core_activity(uint32_t peer, uint32_t replica, StringView computation) {
  CoreActivity activity;
  activity.state = static_cast<uint32_t>(CoreState::kAwaitCore);
  activity.peer = peer;
  activity.sequence = replica;
  set_status_name(activity.name, computation);
  return activity;
}
inline CoreActivity idle_activity(uint32_t launcher) {
  CoreActivity activity;
  activity.state = static_cast<uint32_t>(CoreState::kIdle);
  activity.peer = launcher;
  return activity;
}

// One wait of one core, marked in its record for as long as it lasts: mark() says what the core
// waits in (any number of times: the first saves what the core did before), gave_up() keeps a copy
// as the record's last given-up wait (call it when the wait times out), and the destructor puts
// back what the core did before. A scope that never marked anything costs nothing and writes nothing.
class WaitMark {
 public:
  WaitMark() = default;
  ~WaitMark() {
    if (record_ == nullptr) return;
    detail::begin_status_update(*record_);
    record_->now = before_;
    detail::end_status_update(*record_);
  }
  WaitMark(const WaitMark&) = delete;
  WaitMark& operator=(const WaitMark&) = delete;

  // `core` is the calling core (the same one every time). Marking what is already marked writes
  // nothing, so the update count keeps telling how long the core has not moved.
  void mark(unsigned core, const CoreActivity& activity) {
    if (record_ == nullptr) {
      record_ = core_status(core);
      if (record_ == nullptr) return;
      before_ = record_->now;  // only this core writes it
    } else if (__builtin_memcmp(&record_->now, &activity, sizeof activity) == 0) {
      return;
    }
    detail::begin_status_update(*record_);
    record_->now = activity;
    detail::end_status_update(*record_);
  }
  void gave_up() {
    if (record_ == nullptr) return;
    detail::begin_status_update(*record_);
    record_->gave_up = record_->now;
    record_->waits_given_up = record_->waits_given_up + 1;
    detail::end_status_update(*record_);
  }
  bool marked() const { return record_ != nullptr; }

 private:
  CoreStatusRecord* record_ = nullptr;
  CoreActivity before_;
};

}  // namespace rt::trace
