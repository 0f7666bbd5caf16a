// The cores of a hung board in words (core_diagnosis.hpp).
#include "core_diagnosis.hpp"

#include <cstdio>
#include <map>
#include <set>

#include "hal/support/status.hpp"
#include "runtime/trace/trace_point.hpp"

namespace tpu {
namespace {

using rt::trace::CoreState;
using rt::trace::MailboxDirection;

constexpr uint32_t kLastKnownStatusCode = static_cast<uint32_t>(rt::kLastStatusCode);

std::string core_name(uint32_t core, unsigned cores) {
  return "core " + std::to_string(core) + (core < cores ? "" : " (no such core)");
}

std::string status_name(uint32_t code) {
  if (code > kLastKnownStatusCode) return "status code " + std::to_string(code);
  return rt::status_code_name(static_cast<rt::StatusCode>(code));
}

// "core 3", "cores 0, 1, 2".
std::string cores_label(const std::vector<unsigned>& list) {
  std::string text = list.size() == 1 ? "core " : "cores ";
  for (size_t i = 0; i < list.size(); ++i) text += (i ? ", " : "") + std::to_string(list[i]);
  return text;
}

// The same phrase for several cores: "is running" -> "are running".
std::string plural(const std::string& phrase) {
  using Forms = std::pair<std::string, std::string>;
  for (const auto& [one, many] : {Forms{"is ", "are "}, Forms{"has ", "have "}, Forms{"waits ", "wait "}})
    if (phrase.rfind(one, 0) == 0) return many + phrase.substr(one.size());
  return phrase;
}

// A host call by its function: "host call 'log_steps' (call 4)"; the runtime's reserved ".pod"
// (a collective across boards, runtime/tpu/replicate/uses_hal/pod_bridge.hpp) by what it is.
std::string host_call_phrase(const ActivityView& activity) {
  const std::string call = "call " + std::to_string(activity.call_id);
  if (activity.name == ".pod") return "a collective across boards (host " + call + " '.pod': tpu says whose part is missing)";
  return "host call '" + activity.name + "' (" + call + ")";
}

// What a wait waits for, as it follows "waits" or "gave up waiting": "in all_reduce #1 for core 3".
std::string wait_object(const ActivityView& activity, unsigned cores) {
  const std::string peer = core_name(activity.peer, cores);
  switch (static_cast<CoreState>(activity.state)) {
    case CoreState::kCollective: {
      const std::string kind =
          activity.name.empty() ? "collective kind " + std::to_string(activity.collective) : activity.name;
      return "in " + kind + " #" + std::to_string(activity.sequence) +
             (activity.peer == rt::trace::kNoPeer ? "" : " for " + peer);
    }
    case CoreState::kMailbox:
      switch (static_cast<MailboxDirection>(activity.direction)) {
        case MailboxDirection::kSend: return "to send to " + peer + " (mailbox)";
        case MailboxDirection::kReceive: return "to receive from " + peer + " (mailbox)";
        case MailboxDirection::kNone: break;
      }
      return "on the mailbox with " + peer + " (direction " + std::to_string(activity.direction) + ")";
    case CoreState::kHostCall:
      if (activity.call_id == 0) return "for a host on the link (to " + activity.name + ")";
      return "for " + host_call_phrase(activity);
    case CoreState::kInfeed:
      return "for tuple " + std::to_string(activity.infeed_tuple) + " of infeed queue " +
             std::to_string(activity.infeed_queue) + (activity.name.empty() ? "" : " '" + activity.name + "'");
    case CoreState::kAwaitCore:
      if (activity.name.empty()) return "for " + peer + " to serve launches";
      return "for " + peer + " to finish replica " + std::to_string(activity.sequence) + " of '" + activity.name + "'";
    case CoreState::kIdle: return "for a launch from " + peer;
    default: return "in state " + std::to_string(activity.state) + " (unknown to this tpu)";
  }
}

// A wait on another core of the board (the edges of the wait chain).
bool waits_for_core(const ActivityView& activity) {
  const auto state = static_cast<CoreState>(activity.state);
  return (state == CoreState::kCollective || state == CoreState::kMailbox || state == CoreState::kAwaitCore) &&
         activity.peer != rt::trace::kNoPeer;
}

// Not blocked on anything: running, idle, finished, not started.
bool at_rest(const ActivityView& activity) {
  const auto state = static_cast<CoreState>(activity.state);
  return state == CoreState::kRunning || state == CoreState::kIdle || state == CoreState::kDone ||
         state == CoreState::kNotStarted;
}

std::string events_text(const CoreSnapshot& core) {
  if (!core.trace_problem.empty()) return "trace: " + core.trace_problem;
  if (core.last_events.empty()) return "no trace events";
  std::string text = "last events: ";
  for (size_t i = 0; i < core.last_events.size(); ++i) {
    const TraceEventView& event = core.last_events[i];
    text += (i ? ", " : "") + event.name + " " + duration_text(event.duration_ns);
    if (event.category >= rt::trace::kCategoryCount) text += " (category " + std::to_string(event.category) + ")";
  }
  return text;
}

// A core's step in a wait chain: it waits for `peer` now, or it finished after giving up on `peer`.
struct Edge {
  uint32_t peer;
  bool gave_up;
};

class ChainWriter {
 public:
  explicit ChainWriter(const std::vector<CoreSnapshot>& cores)
      : cores_(cores), count_(static_cast<unsigned>(cores.size())) {
    for (const CoreSnapshot& core : cores) by_core_[core.core] = &core;
    for (const CoreSnapshot& core : cores) {
      const bool done = static_cast<CoreState>(core.now.state) == CoreState::kDone;
      if (waits_for_core(core.now) && is_other_core(core.now.peer, core.core))
        edges_[core.core] = Edge{core.now.peer, false};
      else if (done && waits_for_core(core.gave_up) && is_other_core(core.gave_up.peer, core.core))
        edges_[core.core] = Edge{core.gave_up.peer, true};
    }
  }

  // The chains, heads with the same chain grouped, then the other blocked cores; "" if none.
  std::string write() {
    std::map<std::string, std::vector<unsigned>> chains;  // the chain's text after the head's label -> heads
    std::vector<std::string> order;
    for (unsigned head : heads()) {
      const std::string chain = step(head, edges_.at(head)) + chain_after(head);
      if (!chains.count(chain)) order.push_back(chain);
      chains[chain].push_back(head);
    }
    std::string text;
    for (const std::string& chain : order) {
      const std::vector<unsigned>& group = chains[chain];
      text += (text.empty() ? "" : "; ") + cores_label(group) + " " + (group.size() > 1 ? plural(chain) : chain);
    }
    for (const auto& [phrase, group] : other_waits())
      text += (text.empty() ? "" : "; ") + cores_label(group) + " " + (group.size() > 1 ? plural(phrase) : phrase);
    return text;
  }

 private:
  // Cores in the chain that no waiting core waits for, then one core of each cycle left over.
  std::vector<unsigned> heads() {
    std::set<unsigned> waited_for;
    for (const auto& [core, edge] : edges_) waited_for.insert(edge.peer);
    std::vector<unsigned> list;
    for (const auto& [core, edge] : edges_)
      if (!waited_for.count(core)) list.push_back(core);
    for (unsigned head : list) mark_chain(head);
    for (const auto& [core, edge] : edges_) {
      if (visited_.count(core)) continue;
      list.push_back(core);
      mark_chain(core);
    }
    return list;
  }

  bool is_other_core(uint32_t peer, unsigned self) const { return peer != self && by_core_.count(peer) != 0; }
  const CoreSnapshot& core_at(unsigned core) const { return *by_core_.at(core); }

  void mark_chain(unsigned head) {
    for (unsigned core = head; visited_.insert(core).second && edges_.count(core);) core = edges_.at(core).peer;
  }

  // "waits in all_reduce #1 for core 3" / "gave up waiting in all_reduce #1 for core 3 and finished with X".
  std::string step(unsigned core, const Edge& edge) const {
    const CoreSnapshot& snapshot = core_at(core);
    if (!edge.gave_up) return "waits " + wait_object(snapshot.now, count_);
    return "gave up waiting " + wait_object(snapshot.gave_up, count_) + " and finished with " +
           status_name(snapshot.result_code);
  }

  // What follows the head's own step: ", which waits ... for core 5, which is in host call ...".
  std::string chain_after(unsigned head) const {
    std::set<unsigned> seen = {head};
    std::string text;
    bool after_give_up = edges_.at(head).gave_up;
    for (uint32_t core = edges_.at(head).peer;;) {
      if (seen.count(core)) return text + ": a deadlock";
      seen.insert(core);
      text += after_give_up ? "; core " + std::to_string(core) + " " : ", which ";
      const auto edge = edges_.find(core);
      if (edge == edges_.end()) return text + activity_phrase(core_at(core).now, core_at(core).result_code, count_);
      text += step(core, edge->second);
      after_give_up = edge->second.gave_up;
      core = edge->second.peer;
    }
  }

  // Blocked cores outside every chain (host calls, infeed, a peer that is no core), by phrase.
  std::vector<std::pair<std::string, std::vector<unsigned>>> other_waits() const {
    std::vector<std::pair<std::string, std::vector<unsigned>>> groups;
    for (const CoreSnapshot& core : cores_) {
      if (visited_.count(core.core) || at_rest(core.now)) continue;
      const std::string phrase = activity_phrase(core.now, core.result_code, count_);
      if (!groups.empty() && groups.back().first == phrase) groups.back().second.push_back(core.core);
      else groups.push_back({phrase, {core.core}});
    }
    return groups;
  }

  const std::vector<CoreSnapshot>& cores_;
  unsigned count_;
  std::map<unsigned, const CoreSnapshot*> by_core_;
  std::map<unsigned, Edge> edges_;
  std::set<unsigned> visited_;
};

}  // namespace

std::string duration_text(uint64_t nanoseconds) {
  char text[32];
  const auto whole = static_cast<unsigned long long>(nanoseconds);
  if (nanoseconds < 1000000) std::snprintf(text, sizeof text, "%llu us", whole / 1000);
  else if (nanoseconds < 1000000000) std::snprintf(text, sizeof text, "%.2f ms", nanoseconds / 1e6);
  else std::snprintf(text, sizeof text, "%.2f s", nanoseconds / 1e9);
  return text;
}

std::string activity_phrase(const ActivityView& activity, unsigned result_code, unsigned cores) {
  switch (static_cast<CoreState>(activity.state)) {
    case CoreState::kNotStarted: return "has not started its app";
    case CoreState::kRunning: return "is running (not waiting for anything)";
    case CoreState::kDone: return "has finished (" + status_name(result_code) + ")";
    case CoreState::kIdle: return "is idle, waiting " + wait_object(activity, cores);
    case CoreState::kHostCall:
      if (activity.call_id == 0) return "waits " + wait_object(activity, cores);
      return "is in " + host_call_phrase(activity);
    case CoreState::kCollective:
    case CoreState::kMailbox:
    case CoreState::kInfeed:
    case CoreState::kAwaitCore: return "waits " + wait_object(activity, cores);
  }
  return "is " + wait_object(activity, cores);
}

std::string describe_core(const CoreSnapshot& core, unsigned cores) {
  std::string text = "core " + std::to_string(core.core) + ": " + activity_phrase(core.now, core.result_code, cores);
  if (!core.running_at.empty()) text += " at " + core.running_at;
  if (!core.settled) text += " (its record kept changing while tpu read it)";
  if (static_cast<CoreState>(core.gave_up.state) != CoreState::kNotStarted) {
    text += "; it gave up waiting " + wait_object(core.gave_up, cores);
    if (core.waits_given_up > 1) text += " (" + std::to_string(core.waits_given_up) + " waits given up)";
  }
  return text + "; " + events_text(core);
}

std::string diagnose(const std::vector<CoreSnapshot>& cores) {
  if (cores.empty()) return "no cores in the status table";
  const std::string chains = ChainWriter(cores).write();
  if (!chains.empty()) return chains;
  std::vector<std::pair<std::string, std::vector<unsigned>>> groups;  // every core at rest, by phrase
  for (const CoreSnapshot& core : cores) {
    const std::string phrase = activity_phrase(core.now, core.result_code, static_cast<unsigned>(cores.size()));
    auto group = groups.begin();
    while (group != groups.end() && group->first != phrase) ++group;
    if (group == groups.end()) groups.push_back({phrase, {core.core}});
    else group->second.push_back(core.core);
  }
  std::string text = "no core waits for another: ";
  for (size_t i = 0; i < groups.size(); ++i)
    text += (i ? "; " : "") + cores_label(groups[i].second) + " " +
            (groups[i].second.size() > 1 ? plural(groups[i].first) : groups[i].first);
  return text;
}

}  // namespace tpu
