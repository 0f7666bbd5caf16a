// run_program: the execution model of a TPU app. Every core calls it from the app's run(); core 0
// runs the program (the code that calls replicate, like a TF Python program) and then tells the
// other cores to stop; every other core serves launches from core 0 until then (executor.hpp). Core 0
// may itself be assigned a replica; it runs it between dispatching the others and collecting them.
//
//   rt::Status run(const firmware::CoreContext& context) {
//     return rt::tpu::run_program(context, [&] { return program(); });
//   }
//
// Core 0 returns the program's status (or the error of stopping the workers); a worker returns OK
// when stopped after a program that succeeded, CANCELLED "stopped: the program on core 0 failed"
// after one that failed, or its serving error (no launch and no stop within
// ProgramOptions::serve_idle_timeout_ns). A replica's error is returned by replicate on core 0, not
// by the worker that ran it.
#pragma once
#include "executor.hpp"
#include "hal/support/function_ref.hpp"

namespace rt::tpu {

struct ProgramOptions {
  uint64_t serve_idle_timeout_ns = kDefaultServeIdleTimeoutNs;
  uint64_t stop_timeout_ns = kDefaultWaitTimeoutNs;  // per worker, for its last launch to finish
};

Status run_program(unsigned core, unsigned cores, FunctionRef<Status()> program, const ProgramOptions& options = {});

// For any context with `core` and `cores` members (firmware::CoreContext).
template <class CoreContext>
Status run_program(const CoreContext& context, FunctionRef<Status()> program, const ProgramOptions& options = {}) {
  return run_program(context.core, context.cores, program, options);
}

}  // namespace rt::tpu
