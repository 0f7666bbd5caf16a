// One board's run under `tpu run` (board_run.hpp).
#include "board_run.hpp"

#include <sys/prctl.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <vector>

#include "host-tools/lib/board/board_launch.hpp"
#include "host-tools/lib/text/signal_name.hpp"
#include "host-tools/lib/board/chainloader_upload.hpp"
#include "host-tools/lib/board/cpu_sharing.hpp"
#include "host-tools/lib/board/make_driver.hpp"
#include "host-tools/lib/cli/cli_args.hpp"
#include "host-tools/lib/console/console_printer.hpp"
#include "host-tools/lib/feeds/infeed_host_function.hpp"
#include "host-tools/lib/feeds/infeed_sender.hpp"
#include "host-tools/lib/feeds/outfeed_sink.hpp"
#include "host-tools/lib/functions/app_host.hpp"
#include "host-tools/lib/functions/host_function_worker.hpp"
#include "host-tools/lib/pod/pod_collectives.hpp"
#include "host-tools/lib/session/channel_output.hpp"
#include "host-tools/lib/session/link_session.hpp"
#include "host-tools/lib/session/session_loop.hpp"
#include "host-tools/lib/session/trace_collector.hpp"
#include "host-tools/lib/triage/core_triage.hpp"
#include "host-tools/lib/triage/core_watch.hpp"
#include "host-tools/lib/triage/fault_symbols.hpp"
#include "run_report.hpp"

namespace tpu {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kPumpInterval = std::chrono::milliseconds(100);
// How late a sleep may end (Linux's timer slack, 50 us unless set): tpu's polls of the board and, as
// a board process inherits it, the waits of a host board's cores and of QEMU's threads are this much
// late at most. A pod's 4-byte cross_replica_sum on 2 host boards: 65-120 us at 50 us, ~50 us at 1 us.
constexpr unsigned long kTimerSlackNs = 1000;
constexpr auto kAttachedQuiet = std::chrono::milliseconds(700);
constexpr auto kWorkerWait = std::chrono::milliseconds(20);  // while a host function runs, the board is read this often

// ---------------------------------------------------------------- before the board starts

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
// this rank's own (infeed_files_of_rank), any other is split along every element's first dimension,
// rows [t B / K, (t + 1) B / K) for task t.
std::optional<std::vector<InfeedDataset>> load_infeed(const RunOptions& options, const PodPlace& place) {
  std::vector<InfeedDataset> datasets;
  for (const InfeedFiles& given : options.infeed) {
    std::string error;
    const InfeedFiles spec = place.num_tasks > 1 ? infeed_files_of_rank(given, place.task) : given;
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

// The reserved host function ".cluster": the pod's cluster spec as "worker=host:port,host:port"
// ("" for a single board), which TPUClusterResolver::cluster_spec() asks for on the board.
void serve_cluster_spec(HostFunctions& functions, std::vector<std::string> workers) {
  functions.add(".cluster", [workers](const HostCallRequest&, const HostEnvironment&) {
    std::string text;
    for (const std::string& worker : workers) text += (text.empty() ? "worker=" : ",") + worker;
    return HostCallOutcome::ok({HostTensor::text(text)});
  });
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

// In a pod each board's outfeed tuples go to <dir>/task-<t>/ (the boards' files never collide); the
// host functions keep <dir> itself (an app's inputs there, its reports made by task 0). False once
// it said why the folder cannot be made.
bool make_outfeed_dir(const RunOptions& options, const PodPlace& place, std::optional<std::filesystem::path>& dir) {
  dir = options.outfeed_dir;
  if (dir && place.num_tasks > 1) *dir /= "task-" + std::to_string(place.task);
  if (!dir) return true;
  std::error_code made;
  std::filesystem::create_directories(*dir, made);
  if (made) std::cerr << "tpu: cannot create " << dir->string() << ": " << made.message() << std::endl;
  return !made;
}

// What the board learns from its environment as it starts (it inherits it): that a host serves its
// link, whether it may spin while waiting for tpu (not when the boards take every CPU), and tpu's
// timer slack. Returns whether tpu itself may spin (cpu_sharing.hpp).
bool set_board_environment(const RunOptions& options, const PodPlace& place) {
  setenv("TPU_LINK_HOST", "1", 1);  // the host board waits for the host's first messages (hal/link.hpp)
  const bool spin = options.attach.any() || cpu_left_for_tpu(options.cores, place.local_size);
  setenv("TPU_HOST_SHARES_CPUS", spin ? "0" : "1", 1);
  prctl(PR_SET_TIMERSLACK, kTimerSlackNs, 0, 0, 0);
  return spin;
}

// The board, running: launched or attached to (and, with --chainboot, sent its image first).
struct StartedBoard {
  std::unique_ptr<BoardChannel> channel;  // null if it could not start (`status` says how the run ends)
  std::string program;                    // its name in tpu's messages
  Clock::time_point deadline;             // the run's, from --timeout (the chainloader's upload included)
  std::vector<uint8_t> first_bytes;       // what the board wrote after the chainloader's OK
  ConsolePrinter::Annotator fault_names;  // names a fault's pc, where tpu knows the ELF the board runs
  AddressNamer address_names;             // the same for a running core's pc in the hang triage
  int status = 0;
};

// Names an address of the board's program by function and line (a fault's pc, a running core's in
// the hang triage), for an image tpu built or was given and then launched or sent (an attached board
// without --chainboot runs an image tpu cannot know). The board's addr2line and ELF are asked of
// make only when the first address comes (a run without a fault or a hang pays nothing), and once.
AddressNamer address_names_for(const std::filesystem::path& root, const RunOptions& options,
                               const std::optional<Target>& target) {
  if (!target || (options.attach.any() && !options.chainboot)) return nullptr;
  auto asked = std::make_shared<std::optional<std::optional<FaultSymbolizerCommand>>>();
  return [root, target = *target, asked](uint64_t address) -> std::string {
    if (!*asked) *asked = fault_symbolizer_command(root, target.board, target.app, target.image);
    const std::optional<FaultSymbolizerCommand>& command = **asked;
    return command ? where_in_program(command->addr2line, command->elf, address, root) : "";
  };
}

// The console's fault report pc lines, followed by the line that names the function.
ConsolePrinter::Annotator fault_names_for(const AddressNamer& names) {
  if (!names) return nullptr;
  return [names](std::string_view line) { return explain_fault(line, names); };
}

StartedBoard start_board(const std::filesystem::path& root, const RunOptions& options, const std::optional<Target>& target,
                         const PodPlace& place) {
  StartedBoard board;
  board.status = kExitBuildFailed;
  std::optional<std::vector<uint8_t>> image_to_send;  // built before the attach: nothing the loader says meanwhile counts
  if (options.chainboot && !(image_to_send = chainboot_image(root, target))) return board;
  board.channel = options.attach.any() ? attach_board(attach_target_of(options.attach, place), board.program)
                                       : launch_board(root, options, target, place.local_rank, board.program);
  if (!board.channel) return board;
  board.deadline = deadline_after_seconds(options.timeout_s);
  if (image_to_send) {
    ChainloaderUpload upload = upload_to_chainloader(*board.channel, *image_to_send, board.deadline, std::cerr);
    if (upload.error) {
      std::cerr << "tpu: --chainboot: " << *upload.error << std::endl;
      board.channel.reset();
      board.status = upload.timed_out ? kExitTimeout : kExitBuildFailed;
      return board;
    }
    board.first_bytes = std::move(upload.after_ok);
  }
  board.address_names = address_names_for(root, options, target);
  board.fault_names = fault_names_for(board.address_names);
  board.status = 0;
  return board;
}

std::string target_board_name(const RunOptions& options) { return options.board.value_or("unknown"); }

// ---------------------------------------------------------------- while the board runs

// The board's link session and everything that serves it, and the loop that runs them by turns
// until the board ends, the deadline passes, the user interrupts or something fails for good.
class BoardSession {
 public:
  BoardSession(const RunOptions& options, const PodPlace& place, const std::optional<std::filesystem::path>& outfeed_dir,
               std::vector<InfeedDataset> datasets, HostFunctions& functions, HostFunctionWorker* worker,
               PodCollectives* pod_collectives, StartedBoard board);
  int serve();

 private:
  std::optional<int> stop_reason();  // the user, the pod or the deadline ends the run
  std::optional<int> turn();         // the board's bytes in, then every server's turn
  void halt();  // the board and the host-function worker stopped
  int stop_board(const std::string& why, int status);
  int interrupted();
  int pod_ending(const std::pair<std::string, int>& why);  // another board of the pod failed
  int link_failed(const std::string& failure);
  bool attached_board_done() const;
  int end();

  const RunOptions& options_;
  const PodPlace& place_;
  HostFunctions& functions_;
  HostFunctionWorker* worker_;
  PodCollectives* pod_collectives_;
  std::unique_ptr<BoardChannel> process_;
  std::string program_;
  Clock::time_point deadline_;
  AddressNamer address_names_;  // names a running core's pc in the hang triage
  std::vector<uint8_t> bytes_;  // what the board wrote, read in turns
  TraceCollector trace_;
  OutfeedSink outfeed_;
  const volatile std::sig_atomic_t* interrupted_;
  ConsolePrinter console_;  // whole lines: host functions print between them, never inside one
  ChannelOutput output_;
  LinkSession session_;
  InfeedSender infeed_;
  CoreWatch watch_;  // --watch: the cores live, from board memory
  Clock::time_point last_bytes_at_ = Clock::now();
};

BoardSession::BoardSession(const RunOptions& options, const PodPlace& place,
                           const std::optional<std::filesystem::path>& outfeed_dir, std::vector<InfeedDataset> datasets,
                           HostFunctions& functions, HostFunctionWorker* worker, PodCollectives* pod_collectives,
                           StartedBoard board)
    : options_(options),
      place_(place),
      functions_(functions),
      worker_(worker),
      pod_collectives_(pod_collectives),
      process_(std::move(board.channel)),
      program_(std::move(board.program)),
      deadline_(board.deadline),
      address_names_(std::move(board.address_names)),
      bytes_(std::move(board.first_bytes)),
      trace_(options.trace_file.has_value()),
      outfeed_(outfeed_dir, std::cerr),
      interrupted_(install_interrupt_handlers()),
      output_(*process_, [this](std::string_view text) { console_.add(text); }),
      session_(output_, functions_, outfeed_, std::cerr),
      infeed_(std::move(datasets),
              [this](rt::link::MessageKind kind, uint16_t channel, rt::Span<const uint8_t> payload) {
                session_.send_message(kind, channel, payload);
              },
              std::cerr),
      watch_(options.watch, std::cerr) {
  trace_.serve_with(functions_);
  if (place_.num_tasks > 1) console_.set_line_prefix("[task " + std::to_string(place_.task) + "] ");
  if (board.fault_names) console_.set_annotator(std::move(board.fault_names));
  connect_frames(*process_, session_);
  infeed_.set_payload_limit([this] { return session_.max_send_payload(); });
  infeed_.set_placer([this](uint16_t queue, uint64_t tuple, const std::vector<uint64_t>& element_bytes,
                            const InfeedSender::FillElement& fill) {
    return process_->place_infeed_tuple(queue, tuple, element_bytes, fill);
  });
  add_infeed_functions(functions_, infeed_);
  session_.set_credit_listener(
      [this](unsigned channel, const rt::link::InfeedCredits& credits) { infeed_.on_credits(channel, credits); });
  session_.set_pod(place_.task, place_.num_tasks);
  session_.send_hello();
}

int BoardSession::serve() {
  for (;;) {
    if (const std::optional<int> status = stop_reason()) return *status;
    if (const std::optional<int> status = turn()) return *status;
    if (attached_board_done()) break;
  }
  return end();
}

std::optional<int> BoardSession::stop_reason() {
  if (*interrupted_) return interrupted();
  if (place_.stop_because)
    if (const std::optional<std::pair<std::string, int>> stop = place_.stop_because()) return pod_ending(*stop);
  if (Clock::now() < deadline_) return std::nullopt;
  console_.flush();
  infeed_.report();
  const int status = timed_out(*process_, session_, options_.timeout_s, !options_.timeout_given, program_, worker_,
                                 address_names_);
  if (worker_) worker_->stop();
  return status;
}

std::optional<int> BoardSession::turn() {
  const bool host_function_running = worker_ && worker_->busy();
  const bool pod_waiting = pod_collectives_ && pod_collectives_->busy();
  const bool open = process_->pump(host_function_running ? std::chrono::milliseconds(0)
                                   : pod_waiting         ? pod_collectives_->poll_interval()
                                                         : kPumpInterval,
                                   bytes_);
  if (!bytes_.empty()) last_bytes_at_ = Clock::now();
  session_.feed(bytes_);
  bytes_.clear();
  keep_saying_hello(*process_, session_);
  if (const std::optional<std::string> wrong_place = session_.pod_place_mismatch())
    return stop_board(*wrong_place, kExitLinkFailed);
  if (const std::optional<std::string> failure = link_failure(*process_, session_)) return link_failed(*failure);
  if (worker_) {
    worker_->pump(worker_->busy() ? kWorkerWait : std::chrono::milliseconds(0));
    if (const std::optional<std::string>& failure = worker_->failure()) {
      console_.flush();
      return host_function_failed(*process_, session_, *failure, program_);
    }
  }
  infeed_.pump();
  if (const std::optional<std::string>& error = infeed_.fatal_error())  // the same status as a bad --infeed
    return stop_board("--infeed: " + *error, kExitBuildFailed);
  if (pod_collectives_) pod_collectives_->pump();
  console_.flush_stale();
  watch_.tick(*process_, session_);
  infeed_.progress(Clock::now());
  if (!open) return end();
  return std::nullopt;
}

// The console's last line out, then the board and the host-function worker stopped (a hung host
// function never outlives the run). A hang triage reads the board's memory before this: the host
// board's memory is its process's.
void BoardSession::halt() {
  console_.flush();
  process_->kill();
  if (worker_) worker_->stop();
}

// Ends the run on tpu's side: the board and the worker stopped, `why` said.
int BoardSession::stop_board(const std::string& why, int status) {
  halt();
  std::cerr << "tpu: " << why << "; stopped " << program_ << std::endl;
  return status;
}

int BoardSession::interrupted() {
  console_.flush();
  const CoreStatusRead triage = read_board_triage(*process_, session_, address_names_);  // before the kill
  halt();
  const std::sig_atomic_t signal_number = *interrupted_;  // read once: another signal may come meanwhile
  std::cerr << "\ntpu: interrupted (" << signal_name(signal_number) << "); stopped " << program_ << std::endl;
  print_core_triage(triage, std::cerr);
  return interrupted_exit_status(signal_number);
}

// Another rank failed. This board may be the one that stalled the pod (a core stuck, a host function
// hung) while the other gave up waiting for it first: what its cores were doing is said too.
int BoardSession::pod_ending(const std::pair<std::string, int>& why) {
  console_.flush();
  const CoreStatusRead triage = read_board_triage(*process_, session_, address_names_);  // before the kill
  const std::string running = worker_ && worker_->busy() ? worker_->describe_running() : "";
  halt();
  std::cerr << "tpu: stopped " << program_ << ": the pod is ending, " << why.first << std::endl;
  print_core_triage(triage, std::cerr);
  if (!running.empty()) std::cerr << "tpu: the " << running << std::endl;
  if (pod_collectives_) pod_collectives_->report_unfinished(std::cerr);
  return why.second;
}

int BoardSession::link_failed(const std::string& failure) {
  halt();
  std::cerr << "tpu: the link to the board failed: " << failure << "; stopped " << program_ << std::endl;
  print_tail(session_);
  report_counters(session_);
  return kExitLinkFailed;
}

// An attached board keeps running: its run is over once every core reported and it went quiet.
bool BoardSession::attached_board_done() const {
  return !process_->launched() && all_cores_reported(session_) && Clock::now() - last_bytes_at_ > kAttachedQuiet;
}

// The board ended (or, attached, finished): the last reports, and the run's status.
int BoardSession::end() {
  infeed_.report();
  session_.end_of_stream();
  console_.flush();
  if (worker_ && worker_->busy()) {
    std::cerr << "tpu: the board ended while the " << worker_->describe_running() << "; stopped it" << std::endl;
    worker_->stop();
  }
  if (pod_collectives_) pod_collectives_->report_unfinished(std::cerr);  // whose part a collective waited for
  if (const std::string summary = process_->transport_summary(); !summary.empty())
    std::cerr << "tpu: link: " << summary << std::endl;
  trace_.report(trace_file_of(options_.trace_file, place_),
                session_.board() ? session_.board()->board : target_board_name(options_), std::cerr);
  // A launched board's own status once it exited; an attached board's is its cores' results.
  const int board_status = process_->launched() ? exit_status_of(*process_, program_) : all_cores_reported(session_) ? 0 : 1;
  // A pod's board that never said which task it took may have run alone (it heard no hello at boot):
  // its results do not count for the pod.
  if (place_.num_tasks > 1 && session_.board() && !session_.board_pod_place()) {
    std::cerr << "tpu: the board never said which task of the pod it took (a board learns it from tpu's hello as "
                 "it boots; this one may not have heard it, and ran alone); its run does not count"
              << std::endl;
    return kExitLinkFailed;
  }
  return end_of_run(session_, program_, board_status);
}

}  // namespace

int serve_board(const std::filesystem::path& root, const RunOptions& options, const std::optional<Target>& target,
                const PodPlace& place) {
  std::optional<std::vector<InfeedDataset>> datasets = load_infeed(options, place);
  std::optional<std::filesystem::path> outfeed_dir;
  if (!datasets || !make_outfeed_dir(options, place, outfeed_dir)) return kExitBuildFailed;
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
  const bool spin = set_board_environment(options, place);
  StartedBoard board = start_board(root, options, target, place);
  if (!board.channel) return board.status;
  board.channel->set_spin(spin);
  if (worker) worker->set_spin(spin);
  if (pod_collectives) {  // a large all_reduce written into the board's output as it goes (shared memory)
    BoardChannel* channel = board.channel.get();
    pod_collectives->write_results_in_place(
        [channel](unsigned core, uint32_t id, size_t bytes) { return channel->claim_result(core, id, bytes); },
        [channel](unsigned core, uint32_t id) { channel->release_result(core, id); });
  }
  BoardSession session(options, place, outfeed_dir, std::move(*datasets), functions, worker.get(),
                       pod_collectives ? &*pod_collectives : nullptr, std::move(board));
  return session.serve();
}

}  // namespace tpu
