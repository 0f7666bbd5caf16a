// The channel <-> session loop (session_loop.hpp).
#include "session_loop.hpp"

namespace tpu {
namespace {

constexpr auto kPumpInterval = std::chrono::milliseconds(50);  // at most: LinkSession::kHelloRepeatInterval

}  // namespace

std::optional<std::string> link_failure(const BoardChannel& channel, const LinkSession& session) {
  if (std::optional<std::string> failure = channel.link_failure()) return failure;
  return session.record_failure();
}

void keep_saying_hello(const BoardChannel& channel, LinkSession& session) {
  if (channel.transport() != "shm") session.say_hello_again_if_unanswered(std::chrono::steady_clock::now());
}

bool all_cores_reported(const LinkSession& session) {
  return session.board() && session.results().size() >= session.board()->cores;
}

LoopEnd run_session_loop(BoardChannel& channel, LinkSession& session, const LoopOptions& options) {
  std::vector<uint8_t> bytes;
  std::optional<std::chrono::steady_clock::time_point> quiet_since;
  for (;;) {
    if (options.interrupted != nullptr && *options.interrupted) return LoopEnd::kInterrupted;
    const auto now = std::chrono::steady_clock::now();
    if (now >= options.deadline) return LoopEnd::kTimedOut;
    const bool open = channel.pump(kPumpInterval, bytes);
    session.feed(bytes);
    keep_saying_hello(channel, session);
    if (link_failure(channel, session)) return LoopEnd::kLinkFailed;
    if (!open) {
      session.end_of_stream();
      return LoopEnd::kStreamEnded;
    }
    if (!channel.launched() && all_cores_reported(session)) {
      if (!bytes.empty() || !quiet_since) quiet_since = std::chrono::steady_clock::now();
      else if (std::chrono::steady_clock::now() - *quiet_since >= options.quiet_after_results) return LoopEnd::kAllReported;
    }
    bytes.clear();
  }
}

}  // namespace tpu
