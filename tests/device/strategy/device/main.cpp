// strategy: TPUStrategy on every core. Core 0 runs the program below
// (runtime/tpu/TF_BEHAVIOUR.md section 6: construction, run, merge_call with TF's seed example,
// reduce, broadcast and mirrored variables, distributed datasets, steps_per_run loops, model
// parallelism, hosts and devices, gather, scope, structures, the contrib elements, the other names
// and the options), each check against hand-computed numbers; every other core serves the replicas
// core 0 launches. Each core's verdict is its run_program status.
#include "runtime/log/log.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "runtime/tpu/replicate/program.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

struct Suite {
  const char* name;
  Status (*run)(unsigned cores);
};

constexpr Suite kSuites[] = {
    {"construction", run_construction_cases},
    {"run", run_run_cases},
    {"merge_call", run_merge_cases},
    {"reduce", run_reduce_cases},
    {"broadcast and variables", run_variable_cases},
    {"datasets", run_dataset_cases},
    {"steps_per_run", run_steps_cases},
    {"model parallelism", run_model_parallel_cases},
    {"hosts and devices", run_host_cases},
    {"gather", run_gather_cases},
    {"scope", run_scope_cases},
    {"structures", run_structure_cases},
    {"contrib", run_contrib_cases},
    {"names and options", run_names_cases},
};

Status program(unsigned cores) {
  for (const Suite& suite : kSuites) {
    rt::tpu::PodMemoryScope memory(cores);
    const Status status = suite.run(cores);
    if (!status.is_ok()) return Status::error(status.code(), "{}: {}", suite.name, status.message());
    rt::log_info("strategy {}: ok on {} replicas", suite.name, cores);
  }
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return rt::tpu::run_program(context, [&] { return program(context.cores); });
}

}  // namespace
}  // namespace strategy_test

const firmware::App firmware::kApp = {
    "strategy",
    "TPUStrategy on every core: run, merge_call, reduce, broadcast, mirrored variables, datasets, steps_per_run, "
    "model parallelism, hosts and devices, gather, structures, contrib elements, names and options",
    strategy_test::run,
};
