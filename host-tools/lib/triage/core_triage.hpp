// Hang triage without the board's help: when a run times out or is interrupted, what every core of
// the board was doing, read from the per-core status table in board memory (the runtime keeps it
// with plain stores: runtime/trace/core_status.hpp) through the shared-memory link, which maps the
// board's RAM on every QEMU board (and, on the host board, from the board process's own memory,
// read before it is stopped). One diagnosis line that follows the wait chain, then one line
// per core (core_diagnosis.hpp; a board of one core gets its line alone):
//
//   tpu: hang triage: cores 0, 1, 2 wait in all_reduce #1 for core 3, which is running (not waiting for anything)
//   tpu:   core 0: waits in all_reduce #1 for core 3; last events: app 2.10 ms
//
// A core that is running (not waiting for anything) is located from outside the board, where the
// board tpu launched can be asked (QEMU's monitor, ptrace on the host board's core threads:
// BoardChannel::core_program_counters), and named by its function and source line:
//
//   tpu:   core 3: is running (not waiting for anything) at pc 0x40128a88: run(...) at
//          tests/faults/collective-hang/device/collective_hang.cpp:15; no trace events
//
// On a link that does not map the board's RAM (the UART: --link uart, a real Raspberry Pi) it
// says plainly that no triage is possible there: the cores' own timeout errors are all there is.
#pragma once
#include <functional>
#include <ostream>

#include "host-tools/lib/board/board_channel.hpp"
#include "core_status_reader.hpp"
#include "host-tools/lib/session/link_session.hpp"

namespace tpu {

// The board's status table read through `channel`; the problem names why not (no table on this
// link, a table that cannot be trusted). `cores_hint`: the core count of the board's hello, or 0.
CoreStatusRead read_board_statuses(const BoardChannel& channel, unsigned cores_hint);
// addr2line's answer for an address of the board's program ("FUNCTION at FILE:LINE ..."), or "".
using AddressNamer = std::function<std::string(uint64_t address)>;
// The triage of the board of `session` (its core count from the board's hello, if it said it), read
// before the board is stopped: the statuses as above, and each running core's running_at, "pc 0x...",
// then ": " and `name_address`'s answer where it has one (empty where the channel cannot locate it).
CoreStatusRead read_board_triage(BoardChannel& channel, const LinkSession& session, const AddressNamer& name_address);

// Prints a reading as the triage: the diagnosis, then one line per core (lines start with "tpu: ").
void print_core_triage(const CoreStatusRead& read, std::ostream& out);

}  // namespace tpu
