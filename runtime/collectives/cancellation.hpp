// Cancellation: when a core of a launch fails, the cores that wait for it in a collective stop
// waiting at once (CANCELLED, naming it) instead of at the collectives' timeout.
//
// A launch is the work of one replicate call on this board, numbered by its launcher (core 0); each
// core that runs a part of it joins that number for as long as it runs (LaunchScope). A core whose
// part ends in an error leaves the launch: it says so in a word of its own (the launch's number and
// the core whose failure began it) and wakes the launch's other cores. A collective that cannot move
// stops only if a peer it still waits for has left its launch. So a collective whose members are all
// alive runs to its end (a member that shared its buffers is never abandoned by a peer that could
// still come), a failure cascades only along the waits it causes, and the per-core words of numbered
// launches mean a late failure of an older launch never touches a newer one. Collectives outside a
// launch (the program's own) are never cancelled.
#pragma once
#include "hal/support/status.hpp"

namespace rt {

// The calling core runs a part of launch `launch` (non-zero) until the scope ends.
class LaunchScope {
 public:
  explicit LaunchScope(uint64_t launch);
  ~LaunchScope();
  LaunchScope(const LaunchScope&) = delete;
  LaunchScope& operator=(const LaunchScope&) = delete;

 private:
  uint64_t previous_;
};

// The calling core's part of its launch ended with `error`: it leaves the launch, and the cores in
// `cores` (a bit per core) that wait for it wake and stop.
void leave_launch(const Status& error, uint32_t cores);

// Whether `peer` left the calling core's launch (with an error).
bool left_launch(unsigned peer);

// CANCELLED, after waiting for `peer` in `what`, which left the launch:
// "core <me> stopped waiting in <what>: core <peer> failed in the same launch", or, when the peer
// itself stopped for another: "... core <peer> stopped (core <first> failed in the same launch)".
// The calling core remembers <first>, and names it in turn if it leaves the launch because of this.
Status stopped_for(unsigned peer, StringView what);

}  // namespace rt
