// Reads a board's per-core status table (runtime/trace/core_status.hpp) out of its RAM without the
// board's help, for hang triage (core_triage.hpp) and `tpu run --watch` (core_watch.hpp). Everything
// comes from device memory, so nothing is trusted: the header's magic, version and sizes are
// checked before any record is read, every address (the table, the trace rings, event names) goes
// through the bounds-checked reader, names are cut to a few dozen printable characters, and enum
// values this tool does not know are kept as numbers (the text prints them so). A record that
// changed while it was copied is retried a few times and then marked unsettled, never dropped.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/trace/core_status.hpp"

namespace tpu {

// A copy of `bytes` of board memory at the board's `address`; nothing if any of it lies outside
// what the reader can see (BoardChannel::read_board_ram on the shared-memory link).
using BoardRamReader = std::function<std::optional<std::vector<uint8_t>>(uint64_t address, uint64_t bytes)>;

// One activity as read (core_status.hpp's CoreActivity), with its name made printable.
struct ActivityView {
  uint32_t state = 0;  // rt::trace::CoreState, possibly a value this tool does not know
  uint32_t peer = rt::trace::kNoPeer;
  uint32_t collective = 0;
  uint32_t sequence = 0;
  uint32_t call_id = 0;
  uint16_t infeed_queue = 0;
  uint8_t direction = 0;
  uint64_t infeed_tuple = 0;
  std::string name;  // printable ASCII only, at most 31 characters ("..." appended if unterminated)
};

// One trace event of a core's ring (trace_ring.hpp), newest first in CoreSnapshot::last_events.
struct TraceEventView {
  std::string name;  // printable, cut; "<name unreadable at 0x...>" if its address is outside RAM
  uint8_t category = 0;
  uint64_t duration_ns = 0;
};

struct CoreSnapshot {
  unsigned core = 0;
  uint32_t writes = 0;    // the record's update count: unchanged means the core did not move
  bool settled = true;    // false: the record kept changing while it was copied
  uint32_t result_code = 0;
  uint32_t waits_given_up = 0;
  ActivityView now;
  ActivityView gave_up;   // state kNotStarted: no wait given up
  std::vector<TraceEventView> last_events;
  std::string trace_problem;  // why the trace ring could not be read ("" if read or absent)
  std::string running_at;     // a running core: where it executes, read from outside the board (core_triage.hpp)
};

struct CoreStatusRead {
  std::vector<CoreSnapshot> cores;  // one per booted core, in core order
  std::string problem;              // non-empty: the table could not be trusted (cores is empty)
};

// Reads the table at `address` (`announced_bytes` as the board announced them; 0: unknown) and up
// to `last_events` trace events per core. The core count is the table's own; if it has none yet,
// `cores_hint` (the board's hello), else every record.
CoreStatusRead read_core_statuses(const BoardRamReader& read, uint64_t address, uint64_t announced_bytes,
                                  unsigned cores_hint, unsigned last_events = 3);

// Printable text from `bytes` of device memory: up to the first NUL, at most `max_chars`
// characters, anything but printable ASCII as '?', "..." appended when no NUL came in time.
std::string printable_name(const uint8_t* bytes, size_t size, size_t max_chars);

}  // namespace tpu
