// Trace collection, Chrome JSON and the utilisation table (trace_collector.hpp).
#include "trace_collector.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "runtime/link/protocol/message.hpp"

namespace tpu {
namespace {

constexpr size_t kMaxBatchEvents = rt::link::kMaxPayload;  // more than any payload can hold

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += std::string("\\") + c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else out += c;
  }
  return out + "\"";
}

std::string microseconds(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1000.0);
  return text;
}

struct CoreTotals {
  std::map<std::string, uint64_t> ns;  // "run", "compute", ...
  uint64_t dropped = 0;
  uint64_t events = 0;
};

std::map<unsigned, CoreTotals> totals_by_core(const std::vector<CollectedEvent>& events) {
  std::map<unsigned, CoreTotals> cores;
  for (const CollectedEvent& event : events) {
    CoreTotals& core = cores[event.core];
    if (event.phase == 'X') ++core.events;
    if (event.phase != 'C') continue;
    if (event.name.rfind("total:", 0) == 0) core.ns[event.name.substr(6)] = event.arg;
    else if (event.name == "dropped") core.dropped = event.arg;
  }
  return cores;
}

double percent(uint64_t part, uint64_t whole) { return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole); }

}  // namespace

std::string trace_category_of(const std::string& name) {
  static const std::set<std::string> collectives = {"all_reduce", "reduce_scatter", "all_gather", "broadcast",
                                                    "barrier",    "all_to_all",     "collective_permute"};
  if (name == "app") return "run";
  if (name == "matmul" || name == "conv2d") return "compute";
  if (collectives.count(name)) return "collective";
  if (name == "host_call") return "host_call";
  if (name.rfind("infeed", 0) == 0) return "infeed_wait";
  return "other";
}

void TraceCollector::serve_with(HostFunctions& functions) {
  functions.add("trace.wanted", [this](const HostCallRequest&, const HostEnvironment&) {
    return HostCallOutcome::ok({HostTensor::text(wanted_ ? "1" : "0")});
  });
  functions.add("trace.events", [this](const HostCallRequest& request, const HostEnvironment&) {
    if (request.tensors.size() != 1 || !request.tensors[0].is_text())
      return HostCallOutcome::error(rt::StatusCode::kInvalidArgument, "trace.events takes one int8 vector");
    const std::string problem = add_batch(request.tensors[0].bytes);
    if (!problem.empty()) return HostCallOutcome::error(rt::StatusCode::kInvalidArgument, "trace.events: " + problem);
    return HostCallOutcome::ok();
  });
}

std::string TraceCollector::add_batch(const std::vector<uint8_t>& payload) {
  std::vector<rt::link::TraceEvent> parsed(kMaxBatchEvents);
  rt::Result<size_t> count = rt::link::parse_trace(rt::Span<const uint8_t>(payload.data(), payload.size()),
                                                   rt::Span<rt::link::TraceEvent>(parsed.data(), parsed.size()));
  if (!count) return count.status().c_str();
  for (size_t i = 0; i < *count; ++i) {
    const rt::link::TraceEvent& event = parsed[i];
    events_.push_back(CollectedEvent{event.timestamp_ns, event.arg, event.core, event.phase,
                                     std::string(event.name.data(), event.name.size())});
  }
  return "";
}

std::string TraceCollector::chrome_json(const std::string& board) const {
  uint64_t origin = UINT64_MAX;
  std::set<unsigned> cores;
  for (const CollectedEvent& event : events_) {
    origin = std::min(origin, event.timestamp_ns);
    cores.insert(event.core);
  }
  std::ostringstream json;
  json << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  json << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": "
       << json_string("board " + board) << "}}";
  for (const unsigned core : cores)
    json << ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": " << core
         << ", \"args\": {\"name\": \"core " << core << "\"}}";
  for (const CollectedEvent& event : events_) {
    const uint64_t at = event.timestamp_ns - origin;
    if (event.phase == 'X')
      json << ",\n{\"name\": " << json_string(event.name) << ", \"cat\": " << json_string(trace_category_of(event.name))
           << ", \"ph\": \"X\", \"ts\": " << microseconds(at) << ", \"dur\": " << microseconds(event.arg)
           << ", \"pid\": 0, \"tid\": " << event.core << "}";
    else if (event.phase == 'C')
      json << ",\n{\"name\": " << json_string("core " + std::to_string(event.core) + " " + event.name)
           << ", \"ph\": \"C\", \"ts\": " << microseconds(at) << ", \"pid\": 0, \"tid\": " << event.core
           << ", \"args\": {\"value\": " << event.arg << "}}";
  }
  json << "\n]}\n";
  return json.str();
}

std::string TraceCollector::write_chrome_json(const std::filesystem::path& path, const std::string& board) const {
  std::ofstream file(path, std::ios::trunc);
  file << chrome_json(board);
  file.close();
  return file ? "" : "cannot write " + path.string();
}

// The board's running totals per category (exact, however many timeline events the ring dropped),
// in the five categories the training benchmark reports: compute (matmul, conv2d), collectives,
// infeed waits, host calls, and the rest of the core's app run.
void TraceCollector::print_utilisation(std::ostream& out) const {
  const std::map<unsigned, CoreTotals> cores = totals_by_core(events_);
  if (cores.empty()) return;
  char line[160];
  out << "tpu: where each core's app run went (the board's running totals; the timeline keeps the last events):"
      << std::endl;
  std::snprintf(line, sizeof line, "  %4s %11s %9s %11s %7s %10s %7s %8s %8s", "core", "run ms", "compute%",
                "collective%", "infeed%", "host call%", "other%", "events", "dropped");
  out << line << std::endl;
  for (const auto& [core, core_totals] : cores) {
    const CoreTotals& totals = core_totals;  // clang 14 (the fuzzers' compiler) cannot capture a structured binding
    auto ns = [&](const char* category) {
      const auto found = totals.ns.find(category);
      return found == totals.ns.end() ? uint64_t{0} : found->second;
    };
    const uint64_t run = ns("run");
    const uint64_t compute = ns("compute"), collective = ns("collective"), infeed = ns("infeed_wait"),
                   host_call = ns("host_call");
    const uint64_t accounted = compute + collective + infeed + host_call;
    std::snprintf(line, sizeof line, "  %4u %11.3f %9.1f %11.1f %7.1f %10.1f %7.1f %8llu %8llu", core,
                  static_cast<double>(run) / 1e6, percent(compute, run), percent(collective, run), percent(infeed, run),
                  percent(host_call, run), run > accounted ? percent(run - accounted, run) : 0.0,
                  static_cast<unsigned long long>(totals.events), static_cast<unsigned long long>(totals.dropped));
    out << line << std::endl;
  }
}

void TraceCollector::report(const std::optional<std::filesystem::path>& path, const std::string& board,
                            std::ostream& out) const {
  if (!path) return;
  if (events_.empty()) out << "tpu: trace: the board sent no trace (an image without tracing, or it ended early)" << std::endl;
  const std::string problem = write_chrome_json(*path, board);
  if (!problem.empty()) out << "tpu: trace: " << problem << std::endl;
  else out << "tpu: trace: " << events_.size() << " events written to " << path->string() << " (open it in ui.perfetto.dev)" << std::endl;
  print_utilisation(out);
}

}  // namespace tpu
