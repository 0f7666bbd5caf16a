// What `tpu run` says as a board's run ends (run_report.hpp).
#include "run_report.hpp"

#include <chrono>
#include <iostream>
#include <vector>

#include "host-tools/lib/board/board_exit.hpp"
#include "host-tools/lib/text/numbered_list.hpp"
#include "host-tools/lib/triage/core_triage.hpp"

namespace tpu {
namespace {

constexpr auto kExitGrace = std::chrono::milliseconds(5000);

std::vector<unsigned> cores_without_result(const LinkSession& session) {
  std::vector<unsigned> missing;
  if (!session.board()) return missing;
  for (unsigned core = 0; core < session.board()->cores; ++core)
    if (!session.results().count(core)) missing.push_back(core);
  return missing;
}

// Reports each core's result (the workers stopped with a failed program in one line); true if every
// reported result is OK.
bool report_results(const LinkSession& session) {
  bool all_ok = true;
  std::vector<unsigned> stopped;
  for (const auto& [core, result] : session.results()) {
    if (result.code == rt::StatusCode::kOk) continue;
    all_ok = false;
    if (result.stopped_with_program()) {
      stopped.push_back(core);
      continue;
    }
    std::cerr << "tpu: core " << core << " failed: " << rt::status_code_name(result.code) << ": " << result.message
              << std::endl;
    if (const HostFunctionError* origin = session.host_error_behind(result))
      std::cerr << "tpu:   the error comes from host function '" << origin->function << "', called by "
                << (origin->replica ? "replica " + std::to_string(*origin->replica) + " on core " : "core ")
                << origin->core << " (call " << origin->call << ")" << std::endl;
  }
  if (!stopped.empty())
    std::cerr << "tpu: " << numbered_list("core", stopped) << " " << rt::tpu::kStoppedAfterFailedProgram << std::endl;
  if (session.board()) {
    const size_t reported = session.results().size();
    const char* verdict = !all_ok ? "not all OK" : reported == session.board()->cores ? "all OK" : "each OK";
    std::cerr << "tpu: " << reported << " of " << session.board()->cores << " cores reported a result"
              << (reported == 0 ? "" : std::string(", ") + verdict) << std::endl;
  }
  return all_ok;
}

}  // namespace

void print_tail(const LinkSession& session) {
  const std::vector<std::string> lines = session.console_tail().lines();
  if (lines.empty()) {
    std::cerr << "tpu: (the board printed nothing)" << std::endl;
    return;
  }
  std::cerr << "tpu: last console lines:" << std::endl;
  for (const std::string& line : lines) std::cerr << "    " << line << std::endl;
}

void report_counters(const LinkSession& session) {
  const SessionCounters counters = session.counters();
  const rt::link::DecoderCounters& decoder = counters.decoder;
  if (decoder.bad_frames() != 0)
    std::cerr << "tpu: link: " << decoder.bad_frames() << " bad frames dropped (crc " << decoder.crc_errors
              << ", malformed " << decoder.malformed << ", oversized " << decoder.oversized << ", unknown version "
              << decoder.unknown_version << ", unknown kind " << decoder.unknown_kind << ")" << std::endl;
  if (counters.sequence_gaps != 0)
    std::cerr << "tpu: link: " << counters.sequence_gaps << " gaps in the board's frame sequence numbers" << std::endl;
  if (counters.rejected != 0)
    std::cerr << "tpu: link: " << counters.rejected << " frames from the board could not be used (answered with errors)"
              << std::endl;
  if (counters.outfeed_dropped != 0)
    std::cerr << "tpu: link: " << counters.outfeed_dropped << " outfeed tuples dropped (incomplete)" << std::endl;
  if (counters.trace_frames != 0)
    std::cerr << "tpu: link: " << counters.trace_frames << " trace batches received (not recorded yet)" << std::endl;
}

int end_of_run(const LinkSession& session, const std::string& program, int exit_code) {
  const bool results_ok = report_results(session);
  const std::vector<unsigned> missing = cores_without_result(session);
  if (!session.board()) {
    std::cerr << "tpu: " << program << " " << how_it_ended(exit_code)
              << "; the board never said hello on the link (no link service in this image, or it died early)"
              << std::endl;
    if (exit_code != 0) print_tail(session);
  } else if (!missing.empty() || exit_code != 0) {
    std::cerr << "tpu: " << program << " " << how_it_ended(exit_code);
    if (!missing.empty()) std::cerr << " before " << numbered_list("core", missing) << " reported a result";
    std::cerr << std::endl;
    print_tail(session);
  }
  report_counters(session);
  // Success means every core reported OK (a board that never said hello reported nothing).
  if (exit_code == 0 && (!session.board() || !results_ok || !missing.empty())) return 1;
  if (killed_by_signal(exit_code)) return kExitBoardKilled;  // 128 + signal is tpu's own, for a signal to tpu
  return exit_code;
}

int timed_out(BoardChannel& process, const LinkSession& session, double timeout_s, bool default_timeout,
              const std::string& program, const HostFunctionWorker* worker, const AddressNamer& name_address) {
  const CoreStatusRead triage = read_board_triage(process, session, name_address);  // before the kill: the host
  process.kill();                                                                    // board's memory is its process's
  std::cerr << "tpu: timed out after " << timeout_s << " s";
  if (default_timeout) std::cerr << " (the default; a longer run needs --timeout S, or --timeout inf for no limit)";
  std::cerr << ": " << program << " was still running";
  if (!session.board()) std::cerr << " and the board never said hello on the link";
  const std::vector<unsigned> missing = cores_without_result(session);
  if (session.board() && !missing.empty()) std::cerr << "; " << numbered_list("core", missing) << " had not reported a result";
  std::cerr << "; killed it" << std::endl;
  print_core_triage(triage, std::cerr);  // what every core was doing, from board memory
  if (worker && worker->busy()) std::cerr << "tpu: the " << worker->describe_running() << std::endl;
  print_tail(session);
  report_counters(session);
  return kExitTimeout;
}

int host_function_failed(BoardChannel& process, const LinkSession& session, const std::string& failure,
                         const std::string& program) {
  process.kill();
  std::cerr << "tpu: " << failure << "; stopped " << program << std::endl;
  print_tail(session);
  report_counters(session);
  return kExitHostFunctionFailed;
}

int exit_status_of(BoardChannel& process, const std::string& program) {
  if (const std::optional<int> status = process.wait_for_exit(kExitGrace)) return *status;
  std::cerr << "tpu: " << program << " closed its output but did not exit; killed it" << std::endl;
  process.kill();
  return process.wait_for_exit(kExitGrace).value_or(kExitTimeout);
}

}  // namespace tpu
