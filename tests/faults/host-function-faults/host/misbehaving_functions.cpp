// host-function-faults' host half: functions that misbehave as the environment variable HOST_FAULT
// says (see the device half). tpu runs them in its host-function worker, so none of this can take
// tpu down: a crash or a hang ends the run with a message naming the function.
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>

#include "host-tools/lib/functions/app_host.hpp"

namespace {

std::string fault() {
  const char* value = std::getenv("HOST_FAULT");
  return value ? value : "";
}

// A process the function starts and leaves running, holding tpu's stdout (a pipe's reader waits for
// it): in a session of its own when `own_session` (setsid, as a daemon does). It says its pid.
void leave_a_process_running(bool own_session) {
  std::cout.flush();
  const pid_t child = fork();
  if (child == 0) {
    if (own_session) setsid();
    for (;;) pause();
  }
  std::cout << "misbehave left process " << child << " running" << std::endl;
}

}  // namespace

TPU_HOST_FUNCTION(fault_mode, call) {
  (void)call;
  return tpu::HostTensor::text(fault());
}

TPU_HOST_FUNCTION(count, call) {
  static std::map<unsigned, int32_t> calls;  // per calling core: state the worker keeps for the run
  return tpu::HostTensor::scalar<int32_t>(++calls[call.core()]);
}

TPU_HOST_FUNCTION(misbehave, call) {
  const std::string what = fault();
  if (what == "crash") {
    volatile int* nowhere = nullptr;
    *nowhere = 1;
  }
  if (what == "abort") std::abort();
  if (what == "exit") std::exit(3);
  if (what == "hang")
    for (;;) pause();
  if (what == "throw") throw std::runtime_error("misbehave threw on purpose");
  if (what == "leave-child" || what == "leave-daemon" || what == "leave-daemon-crash")
    leave_a_process_running(what != "leave-child");
  if (what == "leave-daemon-crash") std::raise(SIGSEGV);
  if (what == "wrong-shape") return tpu::HostTensor::of<float>({3}, {1, 2, 3});
  if (what == "two-results") return std::vector<tpu::HostTensor>{call.tensor(0), call.tensor(0)};
  return call.tensor(0);
}
