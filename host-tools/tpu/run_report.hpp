// How a `tpu run` of one board ends: its exit statuses (run.hpp lists them) and what tpu says at the
// end of a run, when it times out, when a host function fails, and about the link's counters.
#pragma once
#include <string>

#include "host-tools/lib/board/board_channel.hpp"
#include "host-tools/lib/functions/host_function_worker.hpp"
#include "host-tools/lib/session/link_session.hpp"
#include "host-tools/lib/triage/core_triage.hpp"

namespace tpu {

inline constexpr int kExitLinkFailed = 1;
inline constexpr int kExitBuildFailed = 2;
inline constexpr int kExitTimeout = 4;
inline constexpr int kExitHostFunctionFailed = 6;

// The board's last console lines (or that it printed nothing), on stderr.
void print_tail(const LinkSession& session);

// The link's troubles, if any: bad frames, sequence gaps, frames answered with errors, dropped outfeed.
void report_counters(const LinkSession& session);

// The run's exit status from the board's own (`exit_code`) and its cores' results, after saying
// what each core reported and, if the run failed, how the board ended and its last lines.
int end_of_run(const LinkSession& session, const std::string& program, int exit_code);

// tpu's --timeout struck: what every core was doing (read from board memory before the kill; where
// a running core is, named by `name_address`), which cores had not reported, the running host
// function; kills the board. `default_timeout`: the run had no --timeout (the line says how to lift
// it). Returns kExitTimeout.
int timed_out(BoardChannel& process, const LinkSession& session, double timeout_s, bool default_timeout,
              const std::string& program, const HostFunctionWorker* worker, const AddressNamer& name_address);

// One of the app's host functions crashed or missed its deadline: kills the board, says why.
// Returns kExitHostFunctionFailed.
int host_function_failed(BoardChannel& process, const LinkSession& session, const std::string& failure,
                         const std::string& program);

// A launched board's exit status, once it exited after closing its output (killed if it did not).
int exit_status_of(BoardChannel& process, const std::string& program);

}  // namespace tpu
