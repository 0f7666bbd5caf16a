// `tpu exec`: option parsing, the exec session with a board, and the result files (exec.hpp).
#include "exec.hpp"

#include <iostream>
#include <sstream>

#include "host-tools/lib/board_launch.hpp"
#include "host-tools/lib/channel_output.hpp"
#include "host-tools/lib/cli_args.hpp"
#include "host-tools/lib/exec_job.hpp"
#include "host-tools/lib/make_driver.hpp"
#include "host-tools/lib/npy_read.hpp"
#include "host-tools/lib/session_loop.hpp"
#include "host-tools/lib/trace_collector.hpp"

namespace tpu {

const char* const kExecUsage =
    "usage: tpu exec [options] OP INPUT.npy... -o OUT.npy\n"
    "\n"
    "  Runs one op on a board (the exec app) and writes the result as .npy.\n"
    "  ops (inputs per replica): matmul (A[M,K], B[K,N]: float32, bfloat16, int8 -> float32/int32),\n"
    "    conv2d (NHWC input, HWIO filter), cross_replica_sum, all_reduce, all_gather, all_to_all,\n"
    "    collective_permute, replicate_padded (the padded inputs replicate() gives the replicas)\n"
    "  With --replicas N give N x inputs files (replica-major), or one stacked file per input with a\n"
    "  leading axis of N. Outputs of several replicas are stacked along a new leading axis.\n"
    "\n"
    "  --board B            qemu-virt-a53 (default), qemu-virt-rv64, host\n"
    "  --cores N            cores to boot (default: the replica count)\n"
    "  --replicas N         replicas, one per core (default 1)\n"
    "  -o, --output F       the result file (required)\n"
    "  --per-replica        write F's stem.r<k>.npy per replica instead of stacking\n"
    "  --padding P          conv2d: VALID (default) or SAME\n"
    "  --strides S          conv2d: h,w or one number for both (default 1)\n"
    "  --dilations D        conv2d: h,w or one number (default 1)\n"
    "  --reduce R           all_reduce: sum (default), mean, max, min\n"
    "  --split-dimension D, --concat-dimension D, --split-count N   all_to_all (default 0, 0, replicas)\n"
    "  --pairs P            collective_permute: source:target pairs, e.g. 0:1,1:2,2:0\n"
    "  --max-shape S        replicate_padded: maximum shape of the input, -1 = unknown (e.g. 4,-1)\n"
    "  --power-of-two       replicate_padded: PaddingSpec POWER_OF_TWO\n"
    "  --timeout S          give up after S seconds (default 120)\n"
    "  --link L             how tensors reach the board: shm (shared memory, the QEMU boards' default),\n"
    "                       uart (the serial line, the only link of the host board and a real Pi)\n"
    "  --trace F            write the cores' timeline as Chrome trace JSON to F, print utilisation\n"
    "  --serial DEV [--baud B] | --socket PATH   use a running board with the exec app instead\n";

namespace {

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitTimeout = 4;
constexpr int kExitInterrupted = 130;
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

int usage_error(const std::string& problem) {
  std::cerr << "tpu exec: " << problem << "\n" << kExecUsage;
  return kExitUsage;
}

std::optional<std::array<int64_t, 2>> parse_pair(const std::string& text) {
  const std::optional<std::vector<int64_t>> values = parse_integer_list(text);
  if (!values || values->empty() || values->size() > 2) return std::nullopt;
  return std::array<int64_t, 2>{(*values)[0], values->back()};
}

// Parses one option at args[i]; "" if it was one, else the problem ("?" if args[i] is no option).
std::string parse_option(const std::vector<std::string>& args, size_t& i, ExecOptions& options) {
  std::string value;
  bool missing = false;
  auto has = [&](const char* name) { return take_option(args, i, name, value, missing); };
  ExecParams& p = options.params;
  if (args[i] == "--per-replica") options.per_replica = true;
  else if (args[i] == "--power-of-two") p.pad_power_of_two = true;
  else if (has("--board")) options.board = value;
  else if (has("--cores")) options.cores = parse_number<unsigned>(value).value_or(0);
  else if (has("--replicas")) p.replicas = parse_number<unsigned>(value).value_or(0);
  else if (has("-o") || has("--output")) options.output = value;
  else if (has("--padding")) p.padding = value;
  else if (has("--reduce")) p.reduce = value;
  else if (has("--strides")) {
    if (auto pair = parse_pair(value)) p.strides = *pair;
    else return "--strides takes h,w or one number, got '" + value + "'";
  } else if (has("--dilations")) {
    if (auto pair = parse_pair(value)) p.dilations = *pair;
    else return "--dilations takes h,w or one number, got '" + value + "'";
  } else if (has("--split-dimension")) p.split_dimension = parse_number<int64_t>(value).value_or(-999);
  else if (has("--concat-dimension")) p.concat_dimension = parse_number<int64_t>(value).value_or(-999);
  else if (has("--split-count")) p.split_count = parse_number<int64_t>(value).value_or(-999);
  else if (has("--pairs")) {
    if (auto pairs = parse_integer_list(value); pairs && pairs->size() % 2 == 0) p.pairs = *pairs;
    else return "--pairs takes source:target pairs, e.g. 0:1,1:0, got '" + value + "'";
  } else if (has("--max-shape")) {
    if (auto shape = parse_integer_list(value)) p.max_shape = *shape;
    else return "--max-shape takes sizes like 4,-1, got '" + value + "'";
  } else if (has("--trace")) options.trace_file = value;
  else if (has("--timeout")) options.timeout_s = parse_number<double>(value).value_or(0);
  else if (has("--link")) options.link = value;
  else if (has("--serial")) options.attach.serial = value;
  else if (has("--socket")) options.attach.socket = value;
  else if (has("--baud")) options.attach.baud = parse_number<unsigned>(value).value_or(0);
  else return "?";
  return missing ? args[i] + " needs a value" : "";
}

std::string check_options(const ExecOptions& options) {
  if (options.params.op.empty()) return "no OP given";
  if (options.output.empty()) return "no output file given (-o OUT.npy)";
  if (options.params.replicas < 1 || options.params.replicas > 16) return "--replicas takes 1..16";
  if (options.cores && (*options.cores < 1 || *options.cores > 16)) return "--cores takes 1..16";
  if (!(options.timeout_s > 0)) return "--timeout takes a positive number of seconds";
  if (options.params.padding != "VALID" && options.params.padding != "SAME") return "--padding takes VALID or SAME";
  if (options.attach.serial && options.attach.socket) return "--serial and --socket exclude each other";
  if (!parse_link_choice(options.link)) return "--link takes shm, uart or auto, got '" + options.link + "'";
  return "";
}

std::optional<ExecOptions> parse_exec(const std::vector<std::string>& args, int& status) {
  ExecOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string problem = parse_option(args, i, options);
    if (problem.empty()) continue;
    if (problem != "?" || (args[i].size() > 1 && args[i][0] == '-')) {
      status = usage_error(problem == "?" ? "unknown option '" + args[i] + "'" : problem);
      return std::nullopt;
    }
    if (options.params.op.empty()) options.params.op = args[i];
    else options.inputs.push_back(args[i]);
  }
  const std::string problem = check_options(options);
  if (!problem.empty()) {
    status = usage_error(problem);
    return std::nullopt;
  }
  return options;
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

void print_console_tail(const LinkSession& session) {
  const std::vector<std::string> lines = session.console_tail().lines();
  if (lines.empty()) return;
  std::cerr << "tpu exec: last console lines:" << std::endl;
  for (const std::string& line : lines) std::cerr << "    " << line << std::endl;
}

// The first core failure, if any, as the user should see it.
bool report_core_failures(const LinkSession& session) {
  bool failed = false;
  for (const auto& [core, result] : session.results()) {
    if (result.code == rt::StatusCode::kOk) continue;
    std::cerr << "tpu exec: core " << core << ": " << rt::status_code_name(result.code) << ": " << result.message << std::endl;
    failed = true;
  }
  return failed;
}

int finish(const ExecOptions& options, const ExecJob& job, const LinkSession& session, LoopEnd end,
           std::optional<int> exit_code, const std::optional<std::string>& failure) {
  if (end == LoopEnd::kInterrupted) return kExitInterrupted;
  if (end == LoopEnd::kLinkFailed) {
    std::cerr << "tpu exec: the link to the board failed: " << failure.value_or("unknown") << "; stopped the board"
              << std::endl;
    print_console_tail(session);
    return kExitFailed;
  }
  if (end == LoopEnd::kTimedOut) {
    std::cerr << "tpu exec: timed out after " << options.timeout_s << " s" << std::endl;
    print_console_tail(session);
    return kExitTimeout;
  }
  const bool failed = report_core_failures(session);
  if (failed || !job.complete() || (exit_code && *exit_code != 0)) {
    if (!failed) std::cerr << "tpu exec: the board ended without sending every output (exit status "
                           << (exit_code ? std::to_string(*exit_code) : "none") << ")" << std::endl;
    print_console_tail(session);
    return kExitFailed;
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

}  // namespace

int exec_main(const std::vector<std::string>& args) {
  int status = 0;
  std::optional<ExecOptions> options = parse_exec(args, status);
  if (!options) return status;
  std::optional<ExecJob> job = load_job(*options);
  if (!job) return kExitUsage;
  const std::optional<std::filesystem::path> root = find_repository_root();
  if (!root) {
    std::cerr << "tpu exec: cannot find the project (a directory with the Makefile and boards/)" << std::endl;
    return kExitUsage;
  }
  const BoardTarget target{options->board, "exec", std::nullopt, options->cores.value_or(options->params.replicas),
                           *parse_link_choice(options->link)};
  std::string error;
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
  std::ostringstream notes;  // link-up notes are not news to an exec user
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
  return finish(*options, *job, session, end, exit_code, failure);
}

}  // namespace tpu
