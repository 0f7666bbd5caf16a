// model-parallel: TPU logical devices (one replica spanning several cores). Core 0 runs the
// program below; every other core serves the replicas' logical cores. Suites: the seed example
// (an image split [1, 2, 4, 1] over 8 logical devices through a conv -> relu -> conv model, bit for
// bit against the unsplit model), replicas x logical devices with cross_replica_sum, SPMD ops
// (matmul splits, elementwise, intra-replica collectives), reductions and softmax over split axes,
// 2-D matmul and conv2d partitioning (channel splits, VALID / strided windows), uneven shards of padded
// (dynamic) dimensions against the unsplit ops on the real data, and the error texts. Each suite sizes
// itself by the core count and logs what it ran or why it skipped a part.
#include "runtime/log/log.hpp"
#include "runtime/tpu/replicate/program.hpp"
#include "suite.hpp"

namespace model_parallel_test {
namespace {

struct Suite {
  const char* name;
  rt::Status (*run)(unsigned cores);
};

constexpr Suite kSuites[] = {
    {"seed example", run_seed_example},
    {"cross-replica", run_cross_replica_case},
    {"spmd ops", run_spmd_op_cases},
    {"spmd reductions and softmax", run_spmd_reduce_cases},
    {"spmd matmul and conv2d partitioning", run_spmd_partition_cases},
    {"uneven shards", run_uneven_cases},
    {"uneven shards of replicate-padded inputs", run_uneven_replicate_case},
    {"error texts", run_error_cases},
};

rt::Status program(unsigned cores) {
  for (const Suite& suite : kSuites) {
    const rt::Status status = suite.run(cores);
    if (!status.is_ok()) return rt::Status::error(status.code(), "{}: {}", suite.name, status.message());
  }
  return rt::Status::ok();
}

rt::Status run(const firmware::CoreContext& context) {
  return rt::tpu::run_program(context, [&] { return program(context.cores); });
}

}  // namespace
}  // namespace model_parallel_test

const firmware::App firmware::kApp = {
    "model-parallel",
    "TPU logical devices: a replica spanning several cores, sharded tensors, SPMD conv/matmul, their error texts",
    model_parallel_test::run,
};
