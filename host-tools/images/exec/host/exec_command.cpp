// The exec app's host half: the `tpu exec` command (CLI11 options, the exec session with a board, the
// result files). `tpu exec [options] OP INPUT.npy... -o OUT.npy` runs one runtime op on a board and
// writes its result as .npy, so users and scripts can check the device against NumPy; the generic
// tpu hands `tpu exec` to this app's tool.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "exec_job.hpp"
#include "host-tools/lib/cli/app_commands.hpp"
#include "host-tools/lib/cli/cli_checks.hpp"
#include "host-tools/lib/board/board_exit.hpp"
#include "host-tools/lib/board/board_launch.hpp"
#include "host-tools/lib/text/signal_name.hpp"
#include "host-tools/lib/session/channel_output.hpp"
#include "host-tools/lib/cli/cli_args.hpp"
#include "host-tools/lib/board/make_driver.hpp"
#include "host-tools/lib/tensors/npy_read.hpp"
#include "host-tools/lib/session/session_loop.hpp"
#include "host-tools/lib/session/trace_collector.hpp"

namespace tpu {
namespace {

constexpr const char* kExecDescription =
    "Runs one op on a board (the exec app) and writes the result as .npy.\n"
    "ops (inputs per replica): matmul (A[M,K], B[K,N]: float32, bfloat16, int8 -> float32/int32),\n"
    "  conv2d (NHWC input, HWIO filter), cross_replica_sum, all_reduce, all_gather, all_to_all,\n"
    "  collective_permute, replicate_padded (the padded inputs replicate() gives the replicas).\n"
    "With --replicas N give N x inputs files (replica-major), or one stacked file per input with a\n"
    "leading axis of N. Outputs of several replicas are stacked along a new leading axis.";

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitTimeout = 4;
constexpr auto kExitGrace = std::chrono::milliseconds(5000);

struct ExecOptions {
  ExecParams params;
  std::string board = "qemu-virt-a53";
  std::optional<unsigned> cores;
  std::vector<std::string> inputs;
  std::string output;
  bool per_replica = false;
  std::optional<std::filesystem::path> trace_file;
  double timeout_s = 120;
  std::string link = "auto";
  AttachTarget attach;
};

// "h,w" or one number for both.
std::string parse_pair(const std::string& text, std::array<int64_t, 2>& pair) {
  const std::optional<std::vector<int64_t>> values = parse_integer_list(text);
  if (!values || values->empty() || values->size() > 2) return "takes h,w or one number, got '" + text + "'";
  pair = {(*values)[0], values->back()};
  return "";
}

int exec_run(const ExecOptions& options);

void add_exec_options(CLI::App& exec, ExecOptions& options) {
  ExecParams& p = options.params;
  exec.add_option("OP", p.op, "the op: " + [] {
    std::string names;
    for (const std::string& name : exec_op_names()) names += (names.empty() ? "" : ", ") + name;
    return names;
  }())->required()->check(CLI::IsMember(exec_op_names()));
  exec.add_option("INPUT", options.inputs, "input .npy files");
  exec.add_option("-o,--output", options.output, "the result file")->required()->check(non_empty());
  exec.add_option("--board", options.board, "a board of boards/ (default qemu-virt-a53)")->check(known_board(known_boards()));
  exec.add_option("--cores", options.cores, "cores to boot (default: the replica count)")->check(CLI::Range(1, 16));
  exec.add_option("--replicas", p.replicas, "replicas, one per core (default 1)")->check(CLI::Range(1, 16));
  exec.add_flag("--per-replica", options.per_replica, "write the output's stem.r<k>.npy per replica instead of stacking");
  exec.add_option("--padding", p.padding, "conv2d: VALID (default) or SAME")->check(CLI::IsMember({"VALID", "SAME"}));
  exec.add_option_function<std::string>("--strides", [&p](const std::string& text) {
    if (const std::string problem = parse_pair(text, p.strides); !problem.empty()) throw CLI::ValidationError("--strides", problem);
  }, "conv2d: h,w or one number for both (default 1)");
  exec.add_option_function<std::string>("--dilations", [&p](const std::string& text) {
    if (const std::string problem = parse_pair(text, p.dilations); !problem.empty()) throw CLI::ValidationError("--dilations", problem);
  }, "conv2d: h,w or one number (default 1)");
  exec.add_option("--reduce", p.reduce, "all_reduce: sum (default), mean, max, min")
      ->check(CLI::IsMember({"sum", "mean", "max", "min"}));
  exec.add_option("--split-dimension", p.split_dimension, "all_to_all (default 0)");
  exec.add_option("--concat-dimension", p.concat_dimension, "all_to_all (default 0)");
  exec.add_option("--split-count", p.split_count, "all_to_all (default: the replicas)");
  exec.add_option_function<std::string>("--pairs", [&p](const std::string& text) {
    const std::optional<std::vector<int64_t>> pairs = parse_integer_list(text);
    if (!pairs || pairs->size() % 2 != 0)
      throw CLI::ValidationError("--pairs", "takes source:target pairs, e.g. 0:1,1:0, got '" + text + "'");
    p.pairs = *pairs;
  }, "collective_permute: source:target pairs, e.g. 0:1,1:2,2:0");
  exec.add_option_function<std::string>("--max-shape", [&p](const std::string& text) {
    const std::optional<std::vector<int64_t>> shape = parse_integer_list(text);
    if (!shape) throw CLI::ValidationError("--max-shape", "takes sizes like 4,-1, got '" + text + "'");
    p.max_shape = *shape;
  }, "replicate_padded: maximum shape of the input, -1 = unknown (e.g. 4,-1)");
  exec.add_flag("--power-of-two", p.pad_power_of_two, "replicate_padded: PaddingSpec POWER_OF_TWO");
  exec.add_option("--timeout", options.timeout_s, "give up after S seconds (default 120)")
      ->check(positive_seconds());
  exec.add_option("--link", options.link, "shm (shared memory, the QEMU boards' default) or uart (the serial line)")
      ->check(CLI::IsMember({"auto", "shm", "uart"}));
  exec.add_option("--trace", options.trace_file, "write the cores' timeline as Chrome trace JSON, print utilisation");
  CLI::Option* serial = exec.add_option("--serial", options.attach.serial, "use a running board with the exec app (a UART device)");
  CLI::Option* socket = exec.add_option("--socket", options.attach.socket, "... or QEMU's -serial unix:PATH,server socket");
  serial->excludes(socket);
  exec.add_option("--baud", options.attach.baud, "the serial line's baud rate (default 115200)")->check(CLI::PositiveNumber);
}

void add_exec_command(CLI::App& tpu) {
  static ExecOptions options;
  CLI::App* exec = tpu.add_subcommand("exec", "run one op on a board, result as .npy (the exec app)");
  exec->footer(kExecDescription);
  add_exec_options(*exec, options);
  exec->callback([] { set_command_status(exec_run(options)); });
}

std::optional<ExecJob> load_job(const ExecOptions& options) {
  std::vector<HostTensor> tensors;
  std::string error;
  for (const std::string& path : options.inputs) {
    std::optional<HostTensor> tensor = read_npy_file(path, error);
    if (!tensor) {
      std::cerr << "tpu exec: " << error << std::endl;
      return std::nullopt;
    }
    tensors.push_back(std::move(*tensor));
  }
  std::optional<ExecJob> job = ExecJob::make(options.params, std::move(tensors), error);
  if (!job) std::cerr << "tpu exec: " << error << std::endl;
  return job;
}

// What a failed run leaves to explain itself: the link's notes (kept quiet on success: link-up
// news, but also frames the board reported bad or lost) and the last lines of the board's console.
void print_failure_context(const LinkSession& session, const std::string& link_notes) {
  if (link_notes.find_first_not_of(" \t\r\n") != std::string::npos) {
    std::cerr << "tpu exec: link notes:" << std::endl;
    std::istringstream lines(link_notes);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) std::cerr << "    " << line << std::endl;
  }
  const std::vector<std::string> lines = session.console_tail().lines();
  if (lines.empty()) return;
  std::cerr << "tpu exec: last console lines:" << std::endl;
  for (const std::string& line : lines) std::cerr << "    " << line << std::endl;
}

// The cores' failures, as the user should see them (the cores stopped after a failed program are the
// program's failure, which core 0 reports: not repeated).
bool report_core_failures(const LinkSession& session) {
  bool failed = false;
  for (const auto& [core, result] : session.results()) {
    if (result.code == rt::StatusCode::kOk) continue;
    failed = true;
    if (result.stopped_with_program()) continue;
    std::cerr << "tpu exec: core " << core << ": " << rt::status_code_name(result.code) << ": " << result.message << std::endl;
  }
  return failed;
}

int finish(const ExecOptions& options, const ExecJob& job, const LinkSession& session, const std::string& link_notes,
           LoopEnd end, std::sig_atomic_t signal_number, std::optional<int> exit_code,
           const std::optional<std::string>& failure) {
  if (end == LoopEnd::kInterrupted) {
    std::cerr << "\ntpu exec: interrupted (" << signal_name(signal_number) << "); stopped the board" << std::endl;
    return interrupted_exit_status(signal_number);
  }
  if (end == LoopEnd::kLinkFailed) {
    std::cerr << "tpu exec: the link to the board failed: " << failure.value_or("unknown") << "; stopped the board"
              << std::endl;
    print_failure_context(session, link_notes);
    return kExitFailed;
  }
  if (end == LoopEnd::kTimedOut) {
    std::cerr << "tpu exec: timed out after " << options.timeout_s << " s" << std::endl;
    print_failure_context(session, link_notes);
    return kExitTimeout;
  }
  const bool failed = report_core_failures(session);
  if (failed || !job.complete() || (exit_code && *exit_code != 0)) {
    if (!failed)
      std::cerr << "tpu exec: the board " << (exit_code ? how_it_ended(*exit_code) : "ended")
                << " before sending every output" << std::endl;
    print_failure_context(session, link_notes);
    return exit_code && killed_by_signal(*exit_code) ? kExitBoardKilled : kExitFailed;
  }
  std::vector<std::filesystem::path> written;
  const std::string problem = write_exec_outputs(job, options.output, options.per_replica, written);
  if (!problem.empty()) {
    std::cerr << "tpu exec: " << problem << std::endl;
    return kExitFailed;
  }
  for (const std::filesystem::path& path : written) std::cerr << "tpu exec: wrote " << path.string() << std::endl;
  return 0;
}


// --cores, or one core per replica where the board boots that many, else the board's default count
// (raspi3b always boots its 4).
std::optional<unsigned> default_cores(const std::filesystem::path& root, const ExecOptions& options, std::string& error) {
  if (options.cores) return *options.cores;
  const std::optional<std::vector<unsigned>> valid = valid_core_counts(root, options.board, error);
  if (!valid) return std::nullopt;
  const unsigned replicas = options.params.replicas;
  return std::find(valid->begin(), valid->end(), replicas) != valid->end() ? replicas : 0u;
}

int exec_run(const ExecOptions& given) {
  const ExecOptions* options = &given;
  std::optional<ExecJob> job = load_job(*options);
  if (!job) return kExitUsage;
  const std::optional<std::filesystem::path> root = find_repository_root();
  if (!root) {
    std::cerr << "tpu exec: cannot find the project (a directory with the Makefile and boards/)" << std::endl;
    return kExitUsage;
  }
  std::string error;
  const std::optional<unsigned> cores = default_cores(*root, *options, error);
  if (!cores) {
    std::cerr << "tpu exec: " << error << std::endl;
    return kExitUsage;
  }
  const BoardTarget target{options->board, "exec", std::nullopt, *cores, *parse_link_choice(options->link)};
  std::unique_ptr<BoardChannel> channel = open_board(*root, target, options->attach, std::cerr, error);
  if (!channel) {
    std::cerr << "tpu exec: " << error << std::endl;
    return kExitUsage;
  }
  HostFunctions functions(HostEnvironment{std::nullopt, &std::cerr});
  job->serve_with(functions);
  TraceCollector trace(options->trace_file.has_value());
  trace.serve_with(functions);
  OutfeedSink outfeed(std::nullopt, std::cerr);
  ChannelOutput output(*channel, nullptr);  // console text is kept for the failure report only
  std::ostringstream notes;  // link-up notes are not news to an exec user: shown only if the run fails
  LinkSession session(output, functions, outfeed, notes);
  connect_frames(*channel, session);
  session.send_hello();
  LoopOptions loop;
  loop.deadline = deadline_after_seconds(options->timeout_s);
  loop.interrupted = install_interrupt_handlers();
  const LoopEnd end = run_session_loop(*channel, session, loop);
  std::optional<int> exit_code = channel->launched() && end == LoopEnd::kStreamEnded ? channel->wait_for_exit(kExitGrace)
                                                                                      : std::nullopt;
  const std::optional<std::string> failure = link_failure(*channel, session);
  channel->kill();
  trace.report(options->trace_file, session.board() ? session.board()->board : "unknown", std::cerr);
  return finish(*options, *job, session, notes.str(), end, *loop.interrupted, exit_code, failure);
}

}  // namespace
}  // namespace tpu

TPU_APP_COMMAND(exec, tpu::add_exec_command)
