// Cancellation: when a core of a launch fails, the cores that wait for it in a collective stop
// waiting at once (CANCELLED, naming it) instead of at the collectives' timeout.
//
// A launch is the work of one replicate call on this board, numbered by its launcher (core 0); each
// core that runs a part of it joins that number for as long as it runs (LaunchScope). A core whose
// part ends in an error leaves the launch: it says so in a word of its own (the launch's number and
// the core whose failure began it) and wakes the board's other cores (a failure is rare: a core of
// another launch, or idle, just goes back to sleep). A collective that cannot move
// stops only if a peer it still waits for has left its launch and nothing of that peer's is waiting
// to be read. So a collective whose members are all alive runs to its end, a failure cascades only
// along the waits it causes, and a member that shared its buffers (collectives.cpp: share_buffers) is
// never abandoned by a cancelled peer: a peer can complete the share only with every member's
// addresses, so a member that left had sent them only if it failed inside the share itself (a
// timeout or a mismatch, which the collectives treat as before). Only this board's cores are
// cancelled: across boards, a board that fails ends the pod (tpu), not a collective.
//
// Launch numbers rise from 1 and a peer's word must match the waiting core's number exactly, so an
// older launch's failure never cancels a newer launch. The other way round, a core still running an
// older launch after its replicate timed out stops seeing a peer's leaving once that peer leaves a
// newer launch too (its word is overwritten): it waits out its timeout, as before. Collectives
// outside a launch (the program's own) are never cancelled.
#pragma once
#include "hal/support/status.hpp"

namespace rt {

// The calling core runs a part of launch `launch_id` (non-zero) until the scope ends (launches never
// nest: replicate refuses to be called from a replica).
class LaunchScope {
 public:
  explicit LaunchScope(uint64_t launch_id);
  ~LaunchScope();
  LaunchScope(const LaunchScope&) = delete;
  LaunchScope& operator=(const LaunchScope&) = delete;
};

// The calling core's part of its launch ended with `error`: it leaves the launch, and the cores
// that wait for it wake and stop.
void leave_launch(const Status& error);

// Whether `peer` left the calling core's launch (with an error).
bool left_launch(unsigned peer);

// CANCELLED, for a core that stops waiting for `peer` in `what` because the peer left the launch:
// "core <me> stopped waiting in <what>: core <peer> failed in the same launch", or, when the peer
// itself stopped for another: "... core <peer> stopped (core <first> failed in the same launch)".
// The calling core remembers <first>, and names it in turn if it leaves the launch because of this.
Status cancelled_waiting_for(unsigned peer, StringView what);

// The calling core stops (CANCELLED) because `failed_core` failed, which it learned inside a
// collective rather than from the core's leaving (a board leader whose trade across boards failed):
// it names `failed_core` as the first failure if it leaves the launch because of this.
void stopping_for(unsigned failed_core);

}  // namespace rt
