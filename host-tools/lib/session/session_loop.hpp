// The loop between a board channel and a link session: pump bytes from the board into the session
// until the stream ends (a launched board exited), every core of an attached board reported its
// result (then a short quiet period for its last console lines and trace frames), the deadline
// passes, the link fails for good (a corrupt shared-memory ring), or the user interrupts.
#pragma once
#include <chrono>
#include <csignal>

#include "host-tools/lib/board/board_channel.hpp"
#include "link_session.hpp"

namespace tpu {

enum class LoopEnd { kStreamEnded, kAllReported, kTimedOut, kInterrupted, kLinkFailed };

struct LoopOptions {
  std::chrono::steady_clock::time_point deadline;
  const volatile std::sig_atomic_t* interrupted = nullptr;  // set by a signal handler
  std::chrono::milliseconds quiet_after_results{700};       // attached boards only
};

LoopEnd run_session_loop(BoardChannel& channel, LinkSession& session, const LoopOptions& options);

// Why the link cannot be used any more (the channel's transport or a corrupt frame body), if so.
std::optional<std::string> link_failure(const BoardChannel& channel, const LinkSession& session);

// On a channel whose bytes can be lost (a serial line: not shared memory), the session's hello again
// until the board answers (LinkSession::say_hello_again_if_unanswered); every session loop calls it.
void keep_saying_hello(const BoardChannel& channel, LinkSession& session);

// True once the board said hello and every one of its cores reported a run result.
bool all_cores_reported(const LinkSession& session);

}  // namespace tpu
