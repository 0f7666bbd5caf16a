// The host-function worker process and tpu's side of it (host_function_worker.hpp).
#include "host_function_worker.hpp"

#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "app_host.hpp"
#include "host_call_wire.hpp"
#include "host-tools/lib/text/signal_name.hpp"

namespace tpu {
namespace {

constexpr auto kExitGrace = std::chrono::milliseconds(1000);
// tpu polls a little for the answer before it sleeps (a wake-up costs ~20 us here, most functions
// answer faster). The worker itself sleeps at once between calls: on a 2-CPU machine a spinning
// worker takes the CPU from the board and doubled the host-call round trip (measured).
constexpr auto kTpuSpin = std::chrono::microseconds(100);
// How often a running call's worker is checked for having exited (waitpid; a dead worker whose
// socket a child keeps open sends no end of stream).
constexpr auto kExitCheckEvery = std::chrono::milliseconds(20);
constexpr auto kSayWaitingAfter = std::chrono::milliseconds(2000);  // the worker's end, after the run
constexpr size_t kMaxPiecesPerWrite = 64;
constexpr size_t kKeptReplyBuffer = size_t{256} << 20;
// Large tensors come and go with every call; malloc keeps them in its heap for the next call instead
// of mapping fresh (zeroed, page-faulting) memory each time.
constexpr int kLargeBlockBytes = 1 << 30;

void keep_large_blocks() {
  mallopt(M_MMAP_THRESHOLD, kLargeBlockBytes);
  mallopt(M_TRIM_THRESHOLD, kLargeBlockBytes);
}

// Writes every piece of `record` (blocking); false if the peer is gone.
bool write_record(int fd, const host_call_wire::Record& record) {
  std::vector<iovec> pieces;
  for (const std::span<const uint8_t> piece : record.pieces())
    pieces.push_back(iovec{const_cast<uint8_t*>(piece.data()), piece.size()});
  size_t first = 0;
  while (first < pieces.size()) {
    msghdr message{};
    message.msg_iov = pieces.data() + first;
    message.msg_iovlen = std::min(pieces.size() - first, kMaxPiecesPerWrite);
    ssize_t sent = ::sendmsg(fd, &message, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    for (; first < pieces.size() && static_cast<size_t>(sent) >= pieces[first].iov_len; ++first) sent -= static_cast<ssize_t>(pieces[first].iov_len);
    if (first < pieces.size()) {
      pieces[first].iov_base = static_cast<uint8_t*>(pieces[first].iov_base) + sent;
      pieces[first].iov_len -= static_cast<size_t>(sent);
    }
  }
  return true;
}


// Reads exactly `size` bytes into `out` (blocking); false at end of stream or on an error.
bool read_exactly(int fd, uint8_t* out, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t got = ::read(fd, out + done, size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

// The run is over (tpu closed the socket): the worker waits for the processes its functions started
// (a plot being drawn; orphans of theirs come to it too, a child subreaper), so their work is done
// when tpu exits; tpu bounds the wait. It exits without running tpu's static destructors (it is a
// fork of tpu: they are tpu's to run).
[[noreturn]] void end_worker() {
  std::cout.flush();
  std::cerr.flush();
  while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
  }
  _exit(0);
}

// The worker's side: one call at a time until tpu closes the socket (or dies).
[[noreturn]] void serve_calls(int socket, const HostEnvironment& environment) {
  HostFunctions functions(environment);  // the app's functions, run here (the built-ins stay in tpu)
  add_app_host_functions(functions);     // (a name clash ends the run in tpu before any call)
  std::vector<uint8_t> body;
  for (;;) {
    uint64_t length = 0;
    if (!read_exactly(socket, reinterpret_cast<uint8_t*>(&length), sizeof length)) end_worker();
    body.resize(length);
    if (!read_exactly(socket, body.data(), body.size())) _exit(0);
    std::string error;
    std::optional<HostCallRequest> request = host_call_wire::decode_request(body.data(), body.size(), error);
    const HostCallOutcome outcome = request ? functions.call(*request)
                                            : HostCallOutcome::error(rt::StatusCode::kInternal, "host-function worker: " + error);
    std::cout.flush();
    std::cerr.flush();
    if (!write_record(socket, host_call_wire::encode_outcome(outcome))) _exit(0);
  }
}

[[noreturn]] void become_worker(int socket, int other_end, pid_t parent, const HostEnvironment& environment,
                                WorkerCrashSite& crash_site) {
  ::close(other_end);
  setpgid(0, 0);  // a group of its own: what a host function starts dies with the worker
  prctl(PR_SET_CHILD_SUBREAPER, 1);  // and stays below it, orphaned or not, for tpu to find
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0);  // tpu died before the line above took effect
  signal(SIGINT, SIG_IGN);            // Ctrl-C is tpu's to handle; it ends the worker itself
  for (const int fatal : {SIGTERM, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS})
    signal(fatal, SIG_DFL);  // a crash ends the worker, whatever handlers the parent installed
  crash_site.record_faults_in_worker();  // and a fault's pc is left for tpu to name first
  serve_calls(socket, environment);
}

// The processes whose parent is `parent` (from /proc/<pid>/stat: the parent is the field after the
// state, which follows the last ')' of the name).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> children;
  std::error_code error;
  for (const std::filesystem::directory_entry& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const size_t end_of_name = line.rfind(')');
    if (end_of_name == std::string::npos) continue;
    std::istringstream fields(line.substr(end_of_name + 1));
    char state = 0;
    long ppid = 0;
    if (fields >> state >> ppid && ppid == parent) children.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return children;
}

// Every process below `root`: its children, theirs, ...
std::vector<pid_t> descendants_of(pid_t root) {
  std::vector<pid_t> found = children_of(root);
  for (size_t i = 0; i < found.size() && found.size() < 4096; ++i)
    for (const pid_t child : children_of(found[i])) found.push_back(child);
  return found;
}

std::string signal_words(int signal_number) {
  const char* description = strsignal(signal_number);
  std::string words = signal_name(signal_number);
  if (description) words += std::string(" (") + description + ")";
  return words;
}

std::string seconds_text(double seconds) {
  std::ostringstream text;
  text.precision(seconds < 10 ? 2 : 3);
  text << seconds << " s";
  return text.str();
}

}  // namespace

std::unique_ptr<HostFunctionWorker> HostFunctionWorker::start(const HostEnvironment& environment,
                                                              std::chrono::milliseconds default_deadline,
                                                              std::string& error) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    error = std::string("socketpair: ") + std::strerror(errno);
    return nullptr;
  }
  std::cout.flush();
  std::cerr.flush();
  keep_large_blocks();  // in tpu and, inherited, in the worker
  prctl(PR_SET_CHILD_SUBREAPER, 1);  // what a worker that died leaves running comes to tpu (kill_group)
  const pid_t parent = getpid();
  auto crash_site = std::make_unique<WorkerCrashSite>();
  const pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    ::close(ends[0]);
    ::close(ends[1]);
    return nullptr;
  }
  if (pid == 0) become_worker(ends[1], ends[0], parent, environment, *crash_site);
  setpgid(pid, pid);  // also from here: no race with a kill of the group before the child ran setpgid
  ::close(ends[1]);
  return std::unique_ptr<HostFunctionWorker>(
      new HostFunctionWorker(pid, ends[0], default_deadline, std::move(crash_site)));
}

HostFunctionWorker::HostFunctionWorker(pid_t pid, int socket, std::chrono::milliseconds default_deadline,
                                       std::unique_ptr<WorkerCrashSite> crash_site)
    : pid_(pid), group_(pid), socket_(socket), default_deadline_(default_deadline), crash_site_(std::move(crash_site)) {
  for (const AppHostFunctionInfo& info : app_host_functions())
    if (info.deadline_s > 0) declared_deadlines_s_[info.name] = info.deadline_s;
}

HostFunctionWorker::~HostFunctionWorker() {
  if (socket_ >= 0) ::close(socket_);  // the worker reads the end of its stream and exits
  socket_ = -1;
  // Its end waits for what its functions started (train-digits' plot: end_worker): as long as a call
  // may take. Then whatever they left running goes.
  // A wait longer than a moment is said when it starts, not only when it ends; the whole wait stays
  // the default deadline.
  auto left = default_deadline_;
  if (pid_ > 0 && default_deadline_ > kSayWaitingAfter && !reap(kSayWaitingAfter)) {
    left = default_deadline_ - kSayWaitingAfter;
    std::cerr << "tpu: waiting up to " << seconds_text(std::chrono::duration<double>(left).count())
              << " more for the processes the app's host functions started (the host-function worker ends after "
              << "them)" << std::endl;
  }
  if (pid_ > 0 && !reap(left)) {
    std::cerr << "tpu: the host-function worker had not ended "
              << seconds_text(std::chrono::duration<double>(default_deadline_).count())
              << " after the run (it waits for the processes its functions started); killed it and them" << std::endl;
    ::kill(pid_, SIGKILL);
    reap(kExitGrace);
  }
  kill_group();  // processes a host function started and left running (holding tpu's stdout, say)
}

void HostFunctionWorker::kill_group() {
  if (pid_ > 0)  // everything its functions started, also what left its group (setsid): all below it
    for (const pid_t descendant : descendants_of(pid_)) ::kill(descendant, SIGKILL);
  if (group_ > 0) ::kill(-group_, SIGKILL);  // ESRCH once nothing of it is left
  // What a worker that died on its own left running came to tpu (a child subreaper): those in the
  // worker's group were killed above; those that left it (setsid) are tpu's children in another
  // session (tpu's own children, the board and the worker, stay in tpu's).
  const pid_t session = getsid(0);
  for (const pid_t child : children_of(getpid()))
    if (child != pid_ && (getpgid(child) == group_ || getsid(child) != session)) {
      ::kill(child, SIGKILL);
      ::waitpid(child, nullptr, 0);
    }
}

std::string HostFunctionWorker::serve_app_functions(HostFunctions& functions) {
  if (std::string clash = app_host_function_clash(functions); !clash.empty()) return clash;
  for (const AppHostFunctionInfo& info : app_host_functions())
    functions.add_deferred(info.name, [this](HostCallRequest request, HostFunctions::Reply reply) {
      submit(std::move(request), std::move(reply));
    });
  return "";
}

void HostFunctionWorker::submit(HostCallRequest request, HostFunctions::Reply reply) {
  const uint64_t number = ++calls_made_[request.function];
  queued_.push_back(Call{std::move(request), std::move(reply), number});
  send_next();
}

void HostFunctionWorker::pump(std::chrono::milliseconds wait) {
  send_next();
  if (!running_) return;
  const auto deadline = running_since_ + deadline_of(running_->request.function);
  const auto now = Clock::now();
  const auto until_deadline = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) +
                              std::chrono::milliseconds(1);
  const auto spin_until = spin_ ? now + std::min<Clock::duration>(kTpuSpin, std::min(wait, until_deadline)) : now;
  while (running_ && Clock::now() < spin_until && !received_some()) {
  }
  pollfd readable{socket_, POLLIN, 0};
  const int waited = ::poll(&readable, 1, static_cast<int>(std::max<int64_t>(0, std::min(wait, until_deadline).count())));
  if (waited > 0) read_reply();
  if (running_ && !failure_ && reaped_after_exit()) return worker_died("during");
  if (running_ && !failure_ && Clock::now() >= deadline) missed_deadline();
}

// A worker that died while a process it started keeps its socket open sends no end of stream: its
// exit is seen here instead, as soon as it happens.
bool HostFunctionWorker::reaped_after_exit() {
  if (pid_ <= 0 || waited_at_ + kExitCheckEvery > Clock::now()) return false;
  waited_at_ = Clock::now();
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) != pid_) return false;
  pid_ = -1;
  exit_status_ = status;
  return true;
}

void HostFunctionWorker::send_next() {
  if (running_ || queued_.empty() || failure_) return;
  running_ = std::move(queued_.front());
  queued_.pop_front();
  running_since_ = Clock::now();
  reset_reply();
  std::cout.flush();  // what tpu printed so far comes before what the function prints
  if (!write_record(socket_, host_call_wire::encode_request(running_->request)))
    worker_died("before it received");
}

bool HostFunctionWorker::received_some() const {
  uint8_t byte = 0;
  return ::recv(socket_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) >= 0 || errno != EAGAIN;
}

// Reads what arrived of the running call's outcome: its length first, then the body into a buffer
// of exactly that size.
void HostFunctionWorker::read_reply() {
  for (;;) {
    const bool prefix = !reply_length_;
    uint8_t* into = prefix ? reinterpret_cast<uint8_t*>(&prefix_) + received_ : reply_.data() + received_;
    const size_t wanted = prefix ? sizeof prefix_ - received_ : reply_.size() - received_;
    const ssize_t got = wanted == 0 ? 0 : ::recv(socket_, into, wanted, MSG_DONTWAIT);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return;  // EAGAIN: the rest comes later
    if (got == 0 && wanted != 0) return worker_died("during");
    received_ += static_cast<size_t>(got);
    if (prefix && received_ == sizeof prefix_) {
      if (prefix_ > kMaxOutcomeBytes) return worker_died("(its answer claimed " + std::to_string(prefix_) + " bytes) in");
      reply_length_ = prefix_;
      reply_.resize(prefix_);
      received_ = 0;
    }
    if (reply_length_ && received_ == reply_.size()) break;
  }
  std::string error;
  std::optional<HostCallOutcome> outcome = host_call_wire::decode_outcome(reply_.data(), reply_.size(), error);
  if (!outcome) return worker_died("(its answer was " + error + ") in");
  finish_running(std::move(*outcome));
}

void HostFunctionWorker::finish_running(HostCallOutcome outcome) {
  Call call = std::move(*running_);
  running_.reset();
  reset_reply();
  call.reply(std::move(outcome));
  send_next();
}

void HostFunctionWorker::worker_died(const std::string& when) {
  kill_group();  // if it only closed its socket, it must not linger, nor anything it started
  const std::optional<int> status = exit_status_ ? exit_status_ : reap(kExitGrace);
  std::string cause = "ended its worker", site;
  if (status && WIFSIGNALED(*status) && WTERMSIG(*status) != SIGKILL) {
    cause = "crashed with " + signal_words(WTERMSIG(*status));
    if (const std::string where = crash_site_->describe(WTERMSIG(*status)); !where.empty()) site = "; it faulted in " + where;
  }
  else if (status && WIFEXITED(*status)) cause = "ended its worker with exit status " + std::to_string(WEXITSTATUS(*status));
  else if (status && WIFSIGNALED(*status)) cause = "was killed (SIGKILL)";
  const std::string name = running_ ? "host function '" + running_->request.function + "'" : "the host-function worker";
  failure_ = name + " " + cause + (running_ ? " " + when + " " + call_words(*running_) : std::string()) + site;
  running_.reset();
}

void HostFunctionWorker::missed_deadline() {
  const double deadline_s = std::chrono::duration<double>(deadline_of(running_->request.function)).count();
  failure_ = "host function '" + running_->request.function + "' did not return within its deadline of " +
             seconds_text(deadline_s) + " in " + call_words(*running_) + "; tpu killed it";
  kill_group();
  reap(kExitGrace);
  running_.reset();
}

void HostFunctionWorker::stop() {
  kill_group();
  reap(kExitGrace);
  if (!failure_) failure_ = "the run ended; the host-function worker was stopped";
  running_.reset();
  queued_.clear();
}

void HostFunctionWorker::reset_reply() {
  received_ = 0;
  reply_length_.reset();
  reply_.clear();
  if (reply_.capacity() > kKeptReplyBuffer) reply_.shrink_to_fit();  // a huge one is not kept for the whole run
}

std::chrono::milliseconds HostFunctionWorker::deadline_of(const std::string& function) const {
  const auto declared = declared_deadlines_s_.find(function);
  if (declared == declared_deadlines_s_.end()) return default_deadline_;
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(declared->second * 1000)));
}

std::string HostFunctionWorker::call_words(const Call& call) const {
  const std::string replica = call.request.replica ? "replica " + std::to_string(*call.request.replica) + " on " : "";
  return "call " + std::to_string(call.number) + " to it, from " + replica + "core " + std::to_string(call.request.core) +
         " (host call " + std::to_string(call.request.id) + ")";
}

std::string HostFunctionWorker::describe_running() const {
  if (!running_) return "";
  const double ran_s = std::chrono::duration<double>(Clock::now() - running_since_).count();
  return "host function '" + running_->request.function + "' had run for " + seconds_text(ran_s) + " in " +
         call_words(*running_);
}

std::optional<int> HostFunctionWorker::reap(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return std::nullopt;
  const auto give_up = Clock::now() + grace;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      pid_ = -1;
      return status;
    }
    if (done < 0 && errno != EINTR) {
      pid_ = -1;
      return std::nullopt;
    }
    if (Clock::now() >= give_up) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace tpu
