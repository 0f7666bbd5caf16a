// The app's own host functions (app_host.hpp) run in a worker process of tpu, so that user code
// that crashes or hangs cannot take tpu down with it:
//
//   - tpu forks the worker once at the start of a run, before the board starts; the worker serves
//     calls one at a time, in the order the board made them, for the whole run (a function's static
//     state carries from call to call). Calls travel through a socket (host_call_wire.hpp).
//   - A function that throws answers its caller with a status, as in process; the worker goes on.
//   - A function that crashes (any fatal signal, abort, exit) or does not return within its
//     deadline is the worker's failure(): a message naming the function, its call number, the
//     calling core and host call, and the signal or the deadline; for a fault (SIGSEGV, SIGBUS,
//     SIGILL, SIGFPE), also the function and source line it faulted at (worker_crash_site.hpp). The run must then end; a worker
//     that failed is dead (reaped), and serves nothing more.
//   - tpu stays in charge while a call runs: pump() waits at most as long as asked, so --timeout,
//     Ctrl-C and SIGTERM are honoured whatever the function does.
//   - The worker dies with tpu: PR_SET_PDEATHSIG (also if tpu is killed with SIGKILL); it ignores
//     the terminal's Ctrl-C (tpu handles it and ends the worker itself).
//   - When the run ends the worker waits for the processes its functions started (a plot being
//     drawn) for up to the default deadline. It leads a process group of its own and is a child
//     subreaper: whatever is still running then (holding tpu's stdout, say) is killed with it, as
//     when the worker fails; and a worker that died while such a process keeps its socket open is
//     seen dead at once (waitpid), not at the call's deadline. (If tpu itself is killed with
//     SIGKILL, only the worker dies with it.)
#pragma once
#include <sys/types.h>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host_functions.hpp"
#include "worker_crash_site.hpp"

namespace tpu {

class HostFunctionWorker {
 public:
  static constexpr uint64_t kMaxOutcomeBytes = uint64_t{8} << 30;
  using Clock = std::chrono::steady_clock;

  // Forks the worker for the functions registered in this program (app_host.hpp); nothing, with
  // `error` set, if it cannot. `default_deadline` applies to functions that declare none.
  static std::unique_ptr<HostFunctionWorker> start(const HostEnvironment& environment,
                                                   std::chrono::milliseconds default_deadline, std::string& error);
  HostFunctionWorker(const HostFunctionWorker&) = delete;
  HostFunctionWorker& operator=(const HostFunctionWorker&) = delete;
  ~HostFunctionWorker();  // ends the worker: EOF, its exit awaited up to the default deadline, then SIGKILL and its group

  // Adds every registered app function to `functions` as a deferred function this worker serves;
  // "" or the name clash (app_host_function_clash).
  std::string serve_app_functions(HostFunctions& functions);

  // Queues a call; `reply` gets its outcome from a later pump().
  void submit(HostCallRequest request, HostFunctions::Reply reply);
  // Sends the next queued call if none is running, then waits up to `wait` for the running one to
  // finish (no wait when idle); replies to it, or records the worker's failure.
  void pump(std::chrono::milliseconds wait);
  // Whether pump() may poll for a moment before it sleeps (only where a CPU is left for it:
  // host-tools/lib/board/cpu_sharing.hpp).
  void set_spin(bool spin) { spin_ = spin; }
  bool busy() const { return running_.has_value(); }
  // Set once the worker crashed, exited or missed a deadline: why, in one line.
  const std::optional<std::string>& failure() const { return failure_; }
  // "host function 'f' had run for 2.5 s in call 3 to it, from core 1 (host call 17)", or "".
  std::string describe_running() const;
  // Kills the worker now (the run is over); nothing more is served.
  void stop();

 private:
  struct Call {
    HostCallRequest request;
    HostFunctions::Reply reply;
    uint64_t number = 0;  // the how-manieth call to this function
  };
  HostFunctionWorker(pid_t pid, int socket, std::chrono::milliseconds default_deadline,
                     std::unique_ptr<WorkerCrashSite> crash_site);
  void send_next();
  bool received_some() const;
  void read_reply();
  void reset_reply();
  void finish_running(HostCallOutcome outcome);
  void worker_died(const std::string& when);
  void missed_deadline();
  bool reaped_after_exit();  // true once the worker exited (its status reaped, at most every 20 ms)
  // SIGKILL to the worker's process group: the worker and every process its functions started.
  void kill_group();
  std::chrono::milliseconds deadline_of(const std::string& function) const;
  std::string call_words(const Call& call) const;
  std::optional<int> reap(std::chrono::milliseconds grace);

  pid_t pid_ = -1;
  pid_t group_ = -1;  // the worker's process group (its pid): the worker and what its functions started
  int socket_ = -1;
  std::optional<int> exit_status_;  // the worker's, once reaped_after_exit() reaped it
  Clock::time_point waited_at_{};
  std::chrono::milliseconds default_deadline_;
  std::map<std::string, double> declared_deadlines_s_;
  std::map<std::string, uint64_t> calls_made_;
  std::deque<Call> queued_;
  std::optional<Call> running_;
  bool spin_ = true;
  Clock::time_point running_since_;
  uint64_t prefix_ = 0;                  // the running call's outcome: its length,
  std::optional<uint64_t> reply_length_;  // once all of it arrived,
  std::vector<uint8_t> reply_;            // its body,
  size_t received_ = 0;                   // and how much of the current part came
  std::optional<std::string> failure_;
  std::unique_ptr<WorkerCrashSite> crash_site_;  // where a crash was, recorded by the worker
};

}  // namespace tpu
