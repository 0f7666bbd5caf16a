// Where a host function crashed: the host-function worker (host_function_worker.hpp) records the pc
// of a fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE) in a page it shares with tpu before it dies of the
// signal, and tpu names it with addr2line on its own executable (the worker is a fork of tpu: the
// same code at the same addresses), as it names a core's fault on the board:
//   tpu: host function 'misbehave' crashed with SIGSEGV (Segmentation fault) during call 1 to it, ...;
//        it faulted in misbehave(...) at tests/faults/host-function-faults/host/faults.cpp:31
// A crash by abort(), exit() or a signal sent from outside has no faulting instruction of the
// function's own: nothing is added (the handler records only faults the kernel raised, in the worker
// itself, not in a process it forked). The handler runs on a stack of its own, so a function that
// overflowed the worker's stack is placed too (a thread a function starts has no such stack).
#pragma once
#include <cstdint>
#include <string>

namespace tpu {

class WorkerCrashSite {
 public:
  // The shared page, mapped before the fork; a site that could not map one records nothing.
  WorkerCrashSite();
  ~WorkerCrashSite();
  WorkerCrashSite(const WorkerCrashSite&) = delete;
  WorkerCrashSite& operator=(const WorkerCrashSite&) = delete;

  // In the worker, after the fork: a fault's pc is recorded here, then the worker dies of the signal.
  void record_faults_in_worker();
  // In tpu, once the worker died of `signal`: "FUNCTION at FILE:LINE (inlined into ...)" of the
  // recorded pc, or "" (no fault of that signal recorded, or addr2line cannot place it).
  std::string describe(int signal) const;

  struct Record;  // the shared page's contents (the .cpp's)

 private:
  Record* record_ = nullptr;
};

}  // namespace tpu
