// Core 0 runs the program and then stops the workers; the other cores serve launches.
#include "runtime/tpu/replicate/program.hpp"

namespace rt::tpu {

Status run_program(unsigned core, unsigned cores, FunctionRef<Status()> program, const ProgramOptions& options) {
  if (core != 0) return serve(options.serve_idle_timeout_ns);
  const Status status = program();
  const Status stopped = stop_serving(cores, options.stop_timeout_ns, !status.is_ok());
  return status.is_ok() ? stopped : status;
}

}  // namespace rt::tpu
