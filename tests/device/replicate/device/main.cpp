// replicate: tpu.replicate on every core. Core 0 runs the program below (TF's examples and
// checks, each suite sized by the core count); every other core serves the replicas core 0 launches.
// Each core's verdict is its run_program status: core 0's says whether every check passed.
#include "runtime/log/log.hpp"
#include "runtime/tpu/replicate/program.hpp"
#include "suite.hpp"

namespace replicate_test {
namespace {

struct Suite {
  const char* name;
  rt::Status (*run)(unsigned cores);
};

constexpr Suite kSuites[] = {
    {"seed examples", run_seed_examples},
    {"collectives", run_collective_cases},
    {"dynamic shapes", run_dynamic_shape_cases},
    {"conventions", run_convention_cases},
    {"structures", run_structure_cases},
    {"error texts", run_error_cases},
    {"outside_compilation", run_outside_compilation_cases},
    {"worker timeout", run_timeout_case},
    {"failing peer", run_failing_peer_case},  // last: leaves the mailboxes out of step
};

rt::Status program(unsigned cores) {
  for (const Suite& suite : kSuites) {
    const rt::Status status = suite.run(cores);
    if (!status.is_ok()) return rt::Status::error(status.code(), "{}: {}", suite.name, status.message());
    rt::log_info("replicate {}: ok on {} replicas", suite.name, cores);
  }
  return rt::Status::ok();
}

rt::Status run(const firmware::CoreContext& context) {
  return rt::tpu::run_program(context, [&] { return program(context.cores); });
}

}  // namespace
}  // namespace replicate_test

const firmware::App firmware::kApp = {
    "replicate",
    "tpu.replicate on every core: TF's examples, collectives, dynamic shapes, conventions, error texts",
    replicate_test::run,
};
