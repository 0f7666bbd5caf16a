// What an app's host half writes: host functions the device calls by name (outside compilation of
// the user's own code). In any .cpp under <app>/host/, built into the app's own tpu program
// (`make app-tool APP=<app>`, which `tpu run <app>` does by itself):
//
//   #include "host-tools/lib/functions/app_host.hpp"
//
//   TPU_HOST_FUNCTION(scale, call) {                    // the device calls host_function("scale", ...)
//     std::vector<float> x = call.values<float>(0);     // tensor 0 as float32 (else INVALID_ARGUMENT)
//     for (float& v : x) v *= 2;
//     return tpu::HostTensor::of(call.tensor(0).dims, x);
//   }
//
// A function returns one tensor, a std::vector of them, or {} for none. Throwing tpu::HostError
// sends that status code and message back to the replica that called; any other exception arrives
// as INTERNAL naming the function. Names are unique: an app function named like a built-in (format,
// to_number, print, summary_csv, infeed_steps) or defined twice stops tpu before the board starts.
//
// `tpu run` runs these functions in a worker process of its own (host_function_worker.hpp): one
// that crashes (a fatal signal, abort, exit) or does not return within its deadline ends the run
// with a message naming it, and cannot take tpu down. The deadline is tpu's --host-call-deadline
// (default 20 s, below the board's own 30 s wait) unless the function declares its own:
//
//   TPU_HOST_FUNCTION_WITH_DEADLINE(slow_plot, 25, call) { ... }   // seconds
//
// The worker lives for the whole run, so a function's static state carries from call to call.
#pragma once
#include <filesystem>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "host_functions.hpp"
#include "host-tools/lib/tensors/host_tensor.hpp"

namespace tpu {

// A status for the calling replica: throw it from a host function.
struct HostError : std::runtime_error {
  HostError(rt::StatusCode code, const std::string& message) : std::runtime_error(message), code(code) {}
  rt::StatusCode code;
};

// One call as the host function sees it.
class HostCall {
 public:
  HostCall(const HostCallRequest& request, const HostEnvironment& environment)
      : request_(request), environment_(environment) {}

  unsigned core() const { return request_.core; }  // the calling replica's core
  std::optional<unsigned> replica() const { return request_.replica; }  // none outside a replicated computation
  const std::string& function() const { return request_.function; }
  const std::string& text() const { return request_.text; }  // the call's text argument ("" if none)
  size_t size() const { return request_.tensors.size(); }   // how many tensors came
  // Tensor i; INVALID_ARGUMENT naming the function if the call has fewer.
  const HostTensor& tensor(size_t index) const;
  // Tensor i's elements as T; INVALID_ARGUMENT if its dtype is not T's.
  template <rt::HasDType T>
  std::vector<T> values(size_t index) const {
    return tensor(index).values<T>("tensor " + std::to_string(index));
  }
  const std::optional<std::filesystem::path>& output_dir() const { return environment_.output_dir; }  // --outfeed-dir
  std::ostream& out() const { return *environment_.out; }  // tpu's output stream
  // In a pod of boards (tpu run --boards K) every board's tpu serves its own board's calls: this
  // board's task and the pod's task count (0 of 1 alone). Reports the whole pod shares, such as a
  // training's progress, are usually made by task 0 only.
  unsigned task() const { return environment_.task; }
  unsigned num_tasks() const { return environment_.num_tasks; }

 private:
  const HostCallRequest& request_;
  const HostEnvironment& environment_;
};

// What a host function returns: one tensor, several, or none ({}).
struct HostReply {
  HostReply() = default;
  HostReply(HostTensor tensor) { tensors.push_back(std::move(tensor)); }  // NOLINT: implicit on purpose
  HostReply(std::vector<HostTensor> many) : tensors(std::move(many)) {}  // NOLINT
  std::vector<HostTensor> tensors;
};

using AppHostFunction = HostReply (*)(const HostCall& call);

// Records a host function at program start (what TPU_HOST_FUNCTION expands to); a deadline of 0
// seconds means tpu's default.
struct HostFunctionRegistration {
  HostFunctionRegistration(const char* name, AppHostFunction function, double deadline_s = 0);
};

// One registered function as tpu sees it.
struct AppHostFunctionInfo {
  std::string name;
  double deadline_s = 0;  // 0: tpu's default
};
std::vector<AppHostFunctionInfo> app_host_functions();

// Adds every registered app function to `functions`, run in this process (the tests, and the
// worker process `tpu run` serves them from); a name that is taken (a built-in, or one registered twice)
// is the returned problem, "" otherwise.
std::string add_app_host_functions(HostFunctions& functions);
// The same check alone: "" if every registered name is free in `functions`.
std::string app_host_function_clash(const HostFunctions& functions);


// The registered names, "a, b" (for tpu's start-up note); "" if the program has none.
std::string app_host_function_names();

// TPU_HOST_FUNCTION(name, call) below defines the function tpu_host_function_<name>: what addr2line
// calls it (worker_crash_site.cpp gives the app's own name instead).
inline constexpr std::string_view kHostFunctionSymbolPrefix = "tpu_host_function_";

}  // namespace tpu

#define TPU_HOST_FUNCTION_WITH_DEADLINE(name, deadline_s, call)                                     \
  static ::tpu::HostReply tpu_host_function_##name(const ::tpu::HostCall& call);                   \
  static const ::tpu::HostFunctionRegistration tpu_host_registration_##name(#name, tpu_host_function_##name, \
                                                                            deadline_s);           \
  static ::tpu::HostReply tpu_host_function_##name([[maybe_unused]] const ::tpu::HostCall& call)

#define TPU_HOST_FUNCTION(name, call) TPU_HOST_FUNCTION_WITH_DEADLINE(name, 0, call)
