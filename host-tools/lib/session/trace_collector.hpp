// The host end of board tracing (firmware/trace_service.hpp): answers the board's "trace.wanted"
// call, collects the "trace.events" batches (kTrace payloads: per core its complete events and its
// per-category totals), writes them as Chrome trace-event JSON (load it in https://ui.perfetto.dev
// or chrome://tracing: one track per core, times in microseconds from the first event), and prints
// the per-core utilisation table: of each core's app run time, the share spent computing (busy),
// in collectives, and waiting on the host (host calls, infeed).
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "host-tools/lib/functions/host_functions.hpp"

namespace tpu {

struct CollectedEvent {
  uint64_t timestamp_ns = 0;
  uint64_t arg = 0;  // 'X': duration ns; 'C': the counter's value
  unsigned core = 0;
  char phase = 'X';
  std::string name;
};

class TraceCollector {
 public:
  explicit TraceCollector(bool wanted) : wanted_(wanted) {}

  // Adds trace.wanted and trace.events; the collector must outlive `functions` and stay in place.
  void serve_with(HostFunctions& functions);
  // Parses one kTrace payload; "" or what is wrong with it.
  std::string add_batch(const std::vector<uint8_t>& payload);

  const std::vector<CollectedEvent>& events() const { return events_; }
  bool empty() const { return events_.empty(); }
  // Chrome trace-event JSON ("" or the problem writing it).
  std::string write_chrome_json(const std::filesystem::path& path, const std::string& board) const;
  std::string chrome_json(const std::string& board) const;
  // The per-core table (from the exact totals; nothing if none arrived).
  void print_utilisation(std::ostream& out) const;
  // End of a traced run: writes `path` (if given) and prints what was written and the table.
  void report(const std::optional<std::filesystem::path>& path, const std::string& board, std::ostream& out) const;

 private:
  bool wanted_;
  std::vector<CollectedEvent> events_;
};

// The category of a trace point name ("matmul" -> "compute", "all_reduce" -> "collective", ...).
std::string trace_category_of(const std::string& name);

}  // namespace tpu
