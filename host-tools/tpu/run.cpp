// The `tpu run` loop: board process <-> link session, with a deadline and an end-of-run report.
#include "run.hpp"

#include "app_tool.hpp"
#include "run_pod.hpp"

#include <sys/prctl.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include "host-tools/lib/board/board_process.hpp"
#include "host-tools/lib/board/chainloader_upload.hpp"
#include "host-tools/lib/board/cpu_sharing.hpp"
#include "host-tools/lib/session/channel_output.hpp"
#include "host-tools/lib/cli/cli_args.hpp"
#include "host-tools/lib/console/console_printer.hpp"
#include "host-tools/lib/triage/core_triage.hpp"
#include "host-tools/lib/triage/core_watch.hpp"
#include "host-tools/lib/functions/host_function_worker.hpp"
#include "host-tools/lib/feeds/infeed_host_function.hpp"
#include "host-tools/lib/feeds/infeed_sender.hpp"
#include "host-tools/lib/functions/app_host.hpp"
#include "host-tools/lib/session/link_session.hpp"
#include "host-tools/lib/board/board_exit.hpp"
#include "host-tools/lib/board/make_driver.hpp"
#include "host-tools/lib/session/session_loop.hpp"
#include "host-tools/lib/session/trace_collector.hpp"
#include "host-tools/lib/pod/pod_collectives.hpp"

namespace tpu {
namespace {

constexpr int kExitBuildFailed = 2;
constexpr int kExitTimeout = 4;
constexpr int kExitInterrupted = 130;
constexpr int kExitLinkFailed = 1;
constexpr int kExitHostFunctionFailed = 6;
constexpr auto kPumpInterval = std::chrono::milliseconds(100);
// How late a sleep may end (Linux's timer slack, 50 us unless set): tpu's polls of the board and, as
// a board process inherits it, the waits of a host board's cores and of QEMU's threads are this much
// late at most. A pod's 4-byte cross_replica_sum on 2 host boards: 65-120 us at 50 us, ~50 us at 1 us.
constexpr unsigned long kTimerSlackNs = 1000;
constexpr auto kExitGrace = std::chrono::milliseconds(5000);
constexpr auto kAttachedQuiet = std::chrono::milliseconds(700);
constexpr auto kWorkerWait = std::chrono::milliseconds(20);  // while a host function runs, the board is read this often
constexpr const char* kChainloaderBoard = "raspi3b";  // the one board with a UART chainloader (boards/raspi3b/chainloader)

struct Target {
  std::string board;
  std::string app;                             // an app's name or its folder's absolute path; empty for an image
  std::optional<std::filesystem::path> image;  // set for an image path
};

bool looks_like_path(const std::string& target) {
  std::error_code ignored;
  return target.find('/') != std::string::npos || target.ends_with(".elf") ||
         std::filesystem::is_regular_file(target, ignored);
}

std::optional<Target> resolve_target(const RunOptions& options) {
  Target target;
  std::error_code error;
  if (std::filesystem::is_directory(options.target, error)) {  // an app folder, anywhere
    target.board = options.board.value_or("qemu-virt-a53");
    target.app = std::filesystem::absolute(options.target, error).lexically_normal().string();
    return target;
  }
  if (!looks_like_path(options.target)) {
    target.board = options.board.value_or("qemu-virt-a53");
    target.app = options.target;
    return target;
  }
  const std::filesystem::path image = std::filesystem::absolute(options.target, error);
  if (error || !std::filesystem::is_regular_file(image, error)) {
    std::cerr << "tpu: no image file at " << options.target << std::endl;
    return std::nullopt;
  }
  target.image = image;
  std::string problem;
  const std::optional<std::string> built_for = board_of_image(image, problem);
  if (!built_for) {
    std::cerr << "tpu: " << problem << std::endl;
    return std::nullopt;
  }
  if (options.board && *options.board != *built_for) {
    std::cerr << "tpu: " << image.string() << " was built for " << *built_for << ", not for --board " << *options.board
              << std::endl;
    return std::nullopt;
  }
  target.board = *built_for;
  return target;
}

std::string target_board_name(const RunOptions& options) { return options.board.value_or("unknown"); }

void print_tail(const LinkSession& session) {
  const std::vector<std::string> lines = session.console_tail().lines();
  if (lines.empty()) {
    std::cerr << "tpu: (the board printed nothing)" << std::endl;
    return;
  }
  std::cerr << "tpu: last console lines:" << std::endl;
  for (const std::string& line : lines) std::cerr << "    " << line << std::endl;
}

std::string cores_without_result(const LinkSession& session) {
  std::string missing;
  if (!session.board()) return missing;
  for (unsigned core = 0; core < session.board()->cores; ++core)
    if (!session.results().count(core)) missing += (missing.empty() ? "" : ", ") + std::to_string(core);
  return missing;
}

// "core 3" or "cores 0, 1" for a list cores_without_result() made.
std::string named_cores(const std::string& list) {
  return (list.find(',') == std::string::npos ? "core " : "cores ") + list;
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

// Reports each core's result; true if every reported result is OK.
bool report_results(const LinkSession& session) {
  bool all_ok = true;
  for (const auto& [core, result] : session.results()) {
    if (result.code == rt::StatusCode::kOk) continue;
    all_ok = false;
    std::cerr << "tpu: core " << core << " failed: " << rt::status_code_name(result.code) << ": " << result.message
              << std::endl;
  }
  if (session.board()) {
    const size_t reported = session.results().size();
    const char* verdict = !all_ok ? "not all OK" : reported == session.board()->cores ? "all OK" : "each OK";
    std::cerr << "tpu: " << reported << " of " << session.board()->cores << " cores reported a result"
              << (reported == 0 ? "" : std::string(", ") + verdict) << std::endl;
  }
  return all_ok;
}

int finish(const LinkSession& session, const std::string& program, int exit_code) {
  const bool results_ok = report_results(session);
  const std::string missing = cores_without_result(session);
  if (!session.board()) {
    std::cerr << "tpu: " << program << " " << how_it_ended(exit_code)
              << "; the board never said hello on the link (no link service in this image, or it died early)"
              << std::endl;
    if (exit_code != 0) print_tail(session);
  } else if (!missing.empty() || exit_code != 0) {
    std::cerr << "tpu: " << program << " " << how_it_ended(exit_code);
    if (!missing.empty()) std::cerr << " before " << named_cores(missing) << " reported a result";
    std::cerr << std::endl;
    print_tail(session);
  }
  report_counters(session);
  // Success means every core reported OK (a board that never said hello reported nothing).
  if (exit_code == 0 && (!session.board() || !results_ok || !missing.empty())) return 1;
  if (killed_by_signal(exit_code)) return kExitBoardKilled;  // tpu's own 128 + signal would mean tpu crashed
  return exit_code;
}

int time_out(BoardChannel& process, const LinkSession& session, const RunOptions& options, const std::string& program,
             HostFunctionWorker* worker) {
  const CoreStatusRead triage = read_board_statuses(process, session);  // before the kill: the host board's
  process.kill();                                                         // memory is its process's
  std::cerr << "tpu: timed out after " << options.timeout_s << " s: " << program << " was still running";
  if (!session.board()) std::cerr << " and the board never said hello on the link";
  const std::string missing = cores_without_result(session);
  if (session.board() && !missing.empty()) std::cerr << "; " << named_cores(missing) << " had not reported a result";
  std::cerr << "; killed it" << std::endl;
  print_core_triage(triage, std::cerr);  // what every core was doing, from board memory
  if (worker && worker->busy()) std::cerr << "tpu: the " << worker->describe_running() << std::endl;
  print_tail(session);
  report_counters(session);
  return kExitTimeout;
}

// One of the app's host functions crashed or missed its deadline: the run ends here.
int host_function_failed(BoardChannel& process, const LinkSession& session, const std::string& failure,
                         const std::string& program) {
  process.kill();
  std::cerr << "tpu: " << failure << "; stopped " << program << std::endl;
  print_tail(session);
  report_counters(session);
  return kExitHostFunctionFailed;
}

// The app's own host functions, served by a worker process (host_function_worker.hpp) so that
// they cannot take tpu down; nothing if the program has none. `error` says why it could not start.
std::unique_ptr<HostFunctionWorker> start_worker(const RunOptions& options, HostFunctions& functions, std::string& error) {
  if (app_host_functions().empty()) return nullptr;
  const auto deadline = std::chrono::milliseconds(static_cast<int64_t>(options.host_call_deadline_s * 1000));
  std::unique_ptr<HostFunctionWorker> worker = HostFunctionWorker::start(functions.environment(), deadline, error);
  if (!worker) {
    error = "cannot start the host-function worker: " + error;
    return nullptr;
  }
  error = worker->serve_app_functions(functions);  // a name clash: the worker ends with it
  if (!error.empty()) return nullptr;
  std::cerr << "tpu: the app's host functions: " << app_host_function_names() << " (in a worker process)" << std::endl;
  return worker;
}

// The --infeed datasets, read and checked before the board starts.
// In a pod (TPU per-host input) each board gets its own rows: a file whose name holds "{rank}" is
// this rank's own (x.{rank}.npy -> x.1.npy on rank 1), any other is split along every element's first
// dimension, rows [t B / K, (t + 1) B / K) for task t.
InfeedSpec spec_of_rank(InfeedSpec spec, const PodPlace& place) {
  for (std::filesystem::path& file : spec.files) {
    std::string name = file.string();
    for (size_t at; (at = name.find("{rank}")) != std::string::npos;) name.replace(at, 6, std::to_string(place.task));
    file = name;
  }
  return spec;
}

bool names_rank(const InfeedSpec& spec) {
  for (const std::filesystem::path& file : spec.files)
    if (file.string().find("{rank}") != std::string::npos) return true;
  return false;
}

std::optional<std::vector<InfeedDataset>> load_infeed(const RunOptions& options, const PodPlace& place) {
  std::vector<InfeedDataset> datasets;
  for (const InfeedSpec& given : options.infeed) {
    std::string error;
    const InfeedSpec spec = place.num_tasks > 1 ? spec_of_rank(given, place) : given;
    std::optional<InfeedDataset> dataset = InfeedDataset::load(spec, error);
    if (!dataset) {
      std::cerr << "tpu: --infeed: " << error << std::endl;
      return std::nullopt;
    }
    // One file for the whole pod: this board streams its part, cut where the board says (its credits).
    const bool pod_part = place.num_tasks > 1 && !names_rank(given);
    if (pod_part) dataset->set_pod_part(place.task, place.num_tasks);
    std::cerr << "tpu: infeed queue " << spec.queue << ": " << dataset->steps() << " tuples of "
              << dataset->describe() << " (" << dataset->tuple_bytes() << " bytes each"
              << (pod_part ? ", of which this board streams its part" : "") << "; ";
    for (size_t element = 0; element < spec.files.size(); ++element)  // so a board's shape error names the file
      std::cerr << (element ? ", " : "") << "element " << element << " from " << spec.files[element].string();
    std::cerr << ")" << std::endl;
    datasets.push_back(std::move(*dataset));
  }
  return datasets;
}

// Builds (for an app) and starts the board the way `make run` would, with its link on shared memory
// where the board has a window (unless --link uart); nothing once it said why not.
std::unique_ptr<BoardChannel> launch_board(const std::filesystem::path& root, const RunOptions& options,
                                           const std::optional<Target>& target, unsigned local_rank, std::string& program) {
  if (!target) return nullptr;
  if (const std::string note = request_core_binding(options.bind_to, target->board, options.cores, local_rank); !note.empty())
    std::cerr << "tpu: " << note << std::endl;
  const BoardTarget board_target{target->board, target->app, target->image, options.cores, options.link};
  std::string error;
  std::unique_ptr<BoardChannel> channel = open_board(root, board_target, AttachTarget{}, std::cerr, error);
  if (!channel) {
    std::cerr << "tpu: " << error << std::endl;
    return nullptr;
  }
  if (channel->transport() == "shm") std::cerr << "tpu: link: shared memory" << std::endl;
  program = channel->name();
  return channel;
}

// --serial / --socket: a board that is already running (nothing is built or launched).
std::unique_ptr<BoardChannel> attach_board(const AttachTarget& attach, std::string& program) {
  std::string error;
  std::unique_ptr<BoardChannel> channel = open_board({}, BoardTarget{}, attach, std::cerr, error);
  if (!channel) {
    std::cerr << "tpu: " << error << std::endl;
    return nullptr;
  }
  program = channel->name();
  return channel;
}

}  // namespace

std::string add_infeed_option(RunOptions& options, const std::string& value) {
  std::string error;
  std::optional<InfeedSpec> spec = parse_infeed_spec(value, error);
  if (!spec) return error;
  for (const InfeedSpec& other : options.infeed)
    if (other.queue == spec->queue) return "--infeed names queue " + std::to_string(spec->queue) + " twice";
  options.infeed.push_back(std::move(*spec));
  return "";
}

namespace {

// The reserved host function ".cluster": the pod's cluster spec as "worker=host:port,host:port"
// ("" for a single board), which TPUClusterResolver::cluster_spec() asks for on the board.
void serve_cluster_spec(HostFunctions& functions, std::vector<std::string> workers) {
  functions.add(".cluster", [workers](const HostCallRequest&, const HostEnvironment&) {
    std::string text;
    for (const std::string& worker : workers) text += (text.empty() ? "worker=" : ",") + worker;
    return HostCallOutcome::ok({HostTensor::text(text)});
  });
}

// A launched board's exit status, once it exited after closing its output (killed if it did not).
int exit_status_of(BoardChannel& process, const std::string& program) {
  if (const std::optional<int> status = process.wait_for_exit(kExitGrace)) return *status;
  std::cerr << "tpu: " << program << " closed its output but did not exit; killed it" << std::endl;
  process.kill();
  return process.wait_for_exit(kExitGrace).value_or(kExitTimeout);
}

// --chainboot: the boot image built for the run (before the board is attached to, so nothing the
// loader says during the build is taken for an answer), or nothing after saying why not.
std::optional<std::vector<uint8_t>> chainboot_image(const std::filesystem::path& root, const std::optional<Target>& target) {
  std::string error = "name the app or image to send";
  std::optional<std::vector<uint8_t>> image;
  if (target) image = built_boot_image(root, kChainloaderBoard, target->app, target->image, error);
  if (!image) std::cerr << "tpu: --chainboot: " << error << std::endl;
  return image;
}

// --trace FILE: in a pod, each board's trace goes to a file of its own, FILE with ".task-<t>" before
// its extension (trace.json: trace.task-0.json, trace.task-1.json, ...).
std::optional<std::filesystem::path> trace_file_of(const std::optional<std::filesystem::path>& file, const PodPlace& place) {
  if (!file || place.num_tasks < 2) return file;
  std::filesystem::path own = *file;
  own.replace_filename(file->stem().string() + ".task-" + std::to_string(place.task) + file->extension().string());
  return own;
}

// One board, served until it ends (a pod's rank serves its own board as task `place.task`).
int serve_board(const std::filesystem::path& root, const RunOptions& options, const std::optional<Target>& target,
                PodPlace place) {
  std::optional<std::vector<InfeedDataset>> datasets = load_infeed(options, place);
  if (!datasets) return kExitBuildFailed;
  // In a pod each board's outfeed tuples go to <dir>/task-<t>/ (the boards' files never collide); the
  // host functions keep <dir> itself (an app's inputs there, its reports made by task 0).
  std::optional<std::filesystem::path> outfeed_dir = options.outfeed_dir;
  if (outfeed_dir && place.num_tasks > 1) *outfeed_dir /= "task-" + std::to_string(place.task);
  if (outfeed_dir) {
    std::error_code made;
    std::filesystem::create_directories(*outfeed_dir, made);
    if (made) {
      std::cerr << "tpu: cannot create " << outfeed_dir->string() << ": " << made.message() << std::endl;
      return kExitBuildFailed;
    }
  }
  HostFunctions functions(HostEnvironment{options.outfeed_dir, &std::cout, place.task, place.num_tasks});
  std::string worker_error;
  std::unique_ptr<HostFunctionWorker> worker = start_worker(options, functions, worker_error);
  if (!worker_error.empty()) {
    std::cerr << "tpu: " << worker_error << std::endl;
    return kExitBuildFailed;
  }
  std::optional<PodCollectives> pod_collectives;  // a pod's reductions across boards (".pod")
  if (place.exchange != nullptr) pod_collectives.emplace(*place.exchange).serve(functions);
  serve_cluster_spec(functions, place.workers);
  std::string program;
  setenv("TPU_LINK_HOST", "1", 1);  // the host board waits for the host's first messages (hal/link.hpp)
  // Without a CPU to spare, neither side spins while waiting for the other (cpu_sharing.hpp).
  const bool spin = options.attach.any() || cpu_left_for_tpu(options.cores, place.local_size);
  setenv("TPU_HOST_SHARES_CPUS", spin ? "0" : "1", 1);
  prctl(PR_SET_TIMERSLACK, kTimerSlackNs, 0, 0, 0);  // before the board starts: it inherits it
  std::optional<std::vector<uint8_t>> image_to_send;
  if (options.chainboot && !(image_to_send = chainboot_image(root, target))) return kExitBuildFailed;
  std::unique_ptr<BoardChannel> process = options.attach.any() ? attach_board(attach_target_of(options.attach, place), program) : launch_board(root, options, target, place.local_rank, program);
  if (!process) return kExitBuildFailed;
  process->set_spin(spin);
  const auto deadline = deadline_after_seconds(options.timeout_s);  // the run's, the chainloader's upload included
  std::vector<uint8_t> bytes;  // what the board wrote, read in turns; first what came after the chainloader's OK
  if (image_to_send) {
    ChainloaderUpload upload = upload_to_chainloader(*process, *image_to_send, deadline, std::cerr);
    if (upload.error) {
      std::cerr << "tpu: --chainboot: " << *upload.error << std::endl;
      return upload.timed_out ? kExitTimeout : kExitBuildFailed;
    }
    bytes = std::move(upload.after_ok);
  }
  if (worker) worker->set_spin(spin);
  TraceCollector trace(options.trace_file.has_value());
  trace.serve_with(functions);
  OutfeedSink outfeed(outfeed_dir, std::cerr);
  const volatile std::sig_atomic_t* interrupted = install_interrupt_handlers();
  ConsolePrinter console;  // whole lines: host functions print between them, never inside one
  if (place.num_tasks > 1) console.set_line_prefix("[task " + std::to_string(place.task) + "] ");
  ChannelOutput output(*process, [&console](std::string_view text) { console.add(text); });
  LinkSession session(output, functions, outfeed, std::cerr);
  connect_frames(*process, session);
  InfeedSender infeed(
      std::move(*datasets),
      [&session](rt::link::MessageKind kind, uint16_t channel, rt::Span<const uint8_t> payload) {
        session.send_message(kind, channel, payload);
      },
      std::cerr);
  infeed.set_payload_limit([&session] { return session.max_send_payload(); });
  infeed.set_placer([&process](uint16_t queue, uint64_t tuple, const std::vector<uint64_t>& element_bytes,
                                const InfeedSender::FillElement& fill) {
    return process->place_infeed_tuple(queue, tuple, element_bytes, fill);
  });
  add_infeed_functions(functions, infeed);
  session.set_credit_listener(
      [&infeed](unsigned channel, const rt::link::InfeedCredits& credits) { infeed.on_credits(channel, credits); });
  session.set_pod(place.task, place.num_tasks);
  session.send_hello();

  CoreWatch watch(options.watch, std::cerr);  // --watch: the cores live, from board memory
  // Ends the run on tpu's side: the console's last line out, the board and the host-function worker
  // stopped, `why` said.
  const auto stop_board = [&](const std::string& why, int status) {
    console.flush();
    process->kill();
    if (worker) worker->stop();
    std::cerr << "tpu: " << why << "; stopped " << program << std::endl;
    return status;
  };
  auto last_bytes_at = std::chrono::steady_clock::now();
  for (bool open = true; open;) {
    if (*interrupted) {
      console.flush();
      const CoreStatusRead triage = read_board_statuses(*process, session);  // before the kill, as in time_out
      process->kill();
      if (worker) worker->stop();
      std::cerr << "\ntpu: interrupted; stopped " << program << std::endl;
      print_core_triage(triage, std::cerr);
      return kExitInterrupted;
    }
    if (place.stop_because)
      if (const std::optional<std::pair<std::string, int>> stop = place.stop_because()) {
        console.flush();
        process->kill();
        if (worker) worker->stop();
        std::cerr << "tpu: stopped " << program << ": the pod is ending, " << stop->first << std::endl;
        return stop->second;
      }
    if (std::chrono::steady_clock::now() >= deadline) {
      console.flush();
      infeed.report();
      const int status = time_out(*process, session, options, program, worker.get());
      if (worker) worker->stop();
      return status;
    }
    const bool host_function_running = worker && worker->busy();
    const bool pod_waiting = pod_collectives && pod_collectives->busy();
    open = process->pump(host_function_running ? std::chrono::milliseconds(0)
                         : pod_waiting         ? pod_collectives->poll_interval()
                                               : kPumpInterval,
                         bytes);
    const bool bytes_were_empty = bytes.empty();
    session.feed(bytes);
    bytes.clear();
    keep_saying_hello(*process, session);
    if (const std::optional<std::string> wrong_place = session.pod_place_mismatch())
      return stop_board(*wrong_place, kExitLinkFailed);
    if (const std::optional<std::string> failure = link_failure(*process, session)) {
      console.flush();
      process->kill();
      std::cerr << "tpu: the link to the board failed: " << *failure << "; stopped " << program << std::endl;
      print_tail(session);
      report_counters(session);
      return kExitLinkFailed;
    }
    if (worker) {
      worker->pump(worker->busy() ? kWorkerWait : std::chrono::milliseconds(0));
      if (const std::optional<std::string>& failure = worker->failure()) {
        console.flush();
        return host_function_failed(*process, session, *failure, program);
      }
    }
    infeed.pump();
    if (const std::optional<std::string>& error = infeed.fatal_error())  // the same status as a bad --infeed
      return stop_board("--infeed: " + *error, kExitBuildFailed);
    if (pod_collectives) pod_collectives->pump();
    console.flush_stale();
    watch.tick(*process, session);
    infeed.progress(std::chrono::steady_clock::now());
    if (!bytes_were_empty) last_bytes_at = std::chrono::steady_clock::now();
    // An attached board keeps running: its run is over once every core reported and it went quiet.
    if (!process->launched() && all_cores_reported(session) && std::chrono::steady_clock::now() - last_bytes_at > kAttachedQuiet) break;
  }
  infeed.report();
  session.end_of_stream();
  console.flush();
  if (worker && worker->busy()) {
    std::cerr << "tpu: the board ended while the " << worker->describe_running() << "; stopped it" << std::endl;
    worker->stop();
  }
  if (const std::string summary = process->transport_summary(); !summary.empty()) std::cerr << "tpu: link: " << summary << std::endl;
  trace.report(trace_file_of(options.trace_file, place), session.board() ? session.board()->board : target_board_name(options),
               std::cerr);
  // A launched board's own status once it exited; an attached board's is its cores' results.
  const int board_status = process->launched() ? exit_status_of(*process, program) : all_cores_reported(session) ? 0 : 1;
  // A pod's board that never said which task it took may have run alone (it heard no hello at boot):
  // its results do not count for the pod.
  if (place.num_tasks > 1 && session.board() && !session.board_pod_place()) {
    std::cerr << "tpu: the board never said which task of the pod it took (a board learns it from tpu's hello as "
                 "it boots; this one may not have heard it, and ran alone); its run does not count"
              << std::endl;
    return kExitLinkFailed;
  }
  return finish(session, program, board_status);
}

// What a pod's ranks compare and how each builds: the image a target names (an image path builds
// nothing).
PodRun pod_run(const std::filesystem::path& root, const RunOptions& options, const Target& target) {
  PodRun run;
  run.board = target.board;
  run.target = target.image ? target.image->string() : target.app;
  run.build = [root, target, attaching = options.attach.any() && !options.chainboot](const std::string& board) {
    if (target.image || attaching) return true;  // an attached board runs the image it has (unless sent one)
    const std::string error = build_image(root, board, target.app);
    if (!error.empty()) std::cerr << "tpu: " << error << std::endl;
    return error.empty();
  };
  run.serve = [root, &options, target](PodPlace place) { return serve_board(root, options, target, place); };
  return run;
}

}  // namespace

int run_board(const RunOptions& given) {
  RunOptions options = given;
  // --board a,b: a pod of different kinds, one board per rank (--boards, if given, must agree).
  std::vector<std::string> kinds;
  if (options.board && options.board->find(',') != std::string::npos) {
    kinds = boards_of_list(*options.board);
    if (options.boards != 0 && options.boards != kinds.size()) {
      std::cerr << "tpu: --board names " << kinds.size() << " boards, --boards says " << options.boards << std::endl;
      return kExitBuildFailed;
    }
    options.boards = static_cast<unsigned>(kinds.size());
    options.board = kinds[0];
  }
  if (options.chainboot && (!options.attach.any() || options.board != kChainloaderBoard)) {
    std::cerr << "tpu: --chainboot sends the image to a raspi3b's UART chainloader: it needs --board raspi3b and "
                 "--serial DEV or --socket PATH"
              << std::endl;
    return kExitBuildFailed;
  }
  const std::optional<std::filesystem::path> root = find_repository_root();
  if (!root) {
    std::cerr << "tpu: cannot find the project (a directory with the Makefile and boards/): run tpu from it" << std::endl;
    return kExitBuildFailed;
  }
  const std::optional<Target> target = options.target.empty() ? std::nullopt : resolve_target(options);
  if (!options.target.empty() && !target) return kExitBuildFailed;
  if (target && !target->app.empty())  // an app with a host half runs under its own tool
    if (const std::optional<int> status = hand_over_to_app_tool(*root, target->app, options.argv)) return *status;
  std::string pod_error;
  const std::optional<PodRank> rank = detect_pod_rank(pod_error);
  if (!pod_error.empty()) {
    std::cerr << "tpu: " << pod_error << std::endl;
    return kExitBuildFailed;
  }
  if ((rank || options.boards > 1) && !target) {
    std::cerr << "tpu: a pod of boards runs an app or an image: name it" << std::endl;
    return kExitBuildFailed;
  }
  if (rank) return run_pod_rank(options, *rank, pod_run(*root, options, *target));
  if (options.boards > 1) {
    PodRun run = pod_run(*root, options, *target);
    run.board_of_rank = kinds;
    return launch_pod(options, run);
  }
  return serve_board(*root, options, target, PodPlace{});
}

}  // namespace tpu
