// TPUStrategy's hosts and devices on the running board (runtime/tpu/strategy/strategy_hosts.hpp):
// a board is TF's local TPU, one host. The contrib properties (between_graph, is_single_tower,
// num_hosts, num_towers_per_host, worker_devices, parameter_devices, should_*, get_host_cpu_device,
// non_slot_devices), TF 2.x's num_replicas_per_host and the resolver's task, each against the value
// TF's definition gives for N cores, written out here; then with a device assignment of two-core
// replicas (mesh order), whose worker devices are the replicas' first cores 0, 2, 4, ...; and
// strategy.extended's names for the same facts; the contrib page's call_for_each_tower example with
// worker_device_index, and initialize / finalize.
#include "hal/support/format.hpp"
#include "runtime/ops/arena_ops.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::tpu::DeviceName;

Status expect_name(const DeviceName& got, const DeviceName& want, const char* what) {
  if (got.view() == want.view()) return Status::ok();
  return rt::internal_error("{}: '{}', expected '{}'", what, got.view(), want.view());
}

DeviceName tpu_device(unsigned core) {
  DeviceName name;
  rt::format_to(name, "/job:localhost/replica:0/task:0/device:TPU:{}", core);
  return name;
}

// worker_devices and parameter_devices: replica r on core first_core(r).
template <class FirstCore>
Status expect_devices(const TPUStrategy& strategy, unsigned replicas, FirstCore first_core) {
  const rt::tpu::WorkerDevices workers = strategy.worker_devices(), parameters = strategy.parameter_devices();
  if (workers.count != replicas || parameters.count != replicas)
    return rt::internal_error("{} worker and {} parameter devices, expected {}", workers.count, parameters.count, replicas);
  for (unsigned r = 0; r < replicas; ++r) {
    RT_RETURN_IF_ERROR(expect_name(workers.names[r], tpu_device(first_core(r)), "worker device"));
    RT_RETURN_IF_ERROR(expect_name(parameters.names[r], tpu_device(first_core(r)), "parameter device"));
  }
  return Status::ok();
}

Status without_assignment(unsigned cores) {
  const TPUStrategy strategy = RT_TRY(TPUStrategy::for_board());
  if (strategy.between_graph() || strategy.is_single_tower() != (cores == 1) || strategy.num_hosts() != 1 ||
      strategy.num_towers_per_host() != cores || strategy.num_replicas_per_host() != cores ||
      !strategy.should_checkpoint() || !strategy.should_init() || !strategy.should_save_summary())
    return rt::internal_error("between_graph {} is_single_tower {} num_hosts {} num_towers_per_host {} "
                              "num_replicas_per_host {} on {} cores, expected false {} 1 {} {} (and should_* true)",
                              strategy.between_graph(), strategy.is_single_tower(), strategy.num_hosts(),
                              strategy.num_towers_per_host(), strategy.num_replicas_per_host(), cores, cores == 1,
                              cores, cores);
  RT_RETURN_IF_ERROR(expect_devices(strategy, cores, [](unsigned r) { return r; }));
  DeviceName host;
  rt::format_to(host, "/replica:0/task:0/device:CPU:0");
  RT_RETURN_IF_ERROR(expect_name(strategy.get_host_cpu_device(0), host, "get_host_cpu_device(0)"));
  RT_RETURN_IF_ERROR(expect_name(strategy.get_host_cpu_device(3), host, "get_host_cpu_device(3)"));
  DeviceName job_host;
  rt::format_to(job_host, "/job:localhost/replica:0/task:0/device:CPU:0");
  RT_RETURN_IF_ERROR(expect_name(strategy.non_slot_devices(), job_host, "non_slot_devices"));
  const rt::tpu::TPUClusterResolver& resolver = strategy.cluster_resolver();
  if (!(resolver.task_type() == "worker") || resolver.task_id() != 0 || !resolver.master().empty() ||
      resolver.num_accelerators() != cores)
    return rt::internal_error("resolver: task {}:{} master '{}' {} accelerators, expected worker:0, '' and {}",
                              resolver.task_type(), resolver.task_id(), resolver.master(),
                              resolver.num_accelerators(), cores);
  return Status::ok();
}

// Two-core replicas, as many as fit, in mesh order: replica r on cores 2r and 2r + 1.
Status with_assignment(unsigned cores) {
  if (cores < 4 || cores % 2 != 0) return Status::ok();  // needs two replicas of a two-core chip
  const rt::tpu::Topology topology = RT_TRY(rt::tpu::Topology::for_cores(static_cast<int>(cores)));
  const int32_t chip[] = {1, 1, 1, 2};
  const unsigned replicas = cores / 2;
  const rt::tpu::DeviceAssignment assignment = RT_TRY(rt::tpu::DeviceAssignment::build(
      topology, rt::Span<const int32_t>(chip, 4), {}, static_cast<int>(replicas), rt::tpu::DeviceOrderMode::kMesh));
  const TPUStrategy strategy = RT_TRY(TPUStrategy::for_board({.device_assignment = &assignment}));
  if (strategy.num_replicas_per_host() != replicas || strategy.num_hosts() != 1 || strategy.is_single_tower() ||
      strategy.num_towers_per_host() != cores)
    return rt::internal_error("with two-core replicas: num_replicas_per_host {} num_hosts {} is_single_tower {} "
                              "num_towers_per_host {}, expected {} 1 false {}", strategy.num_replicas_per_host(),
                              strategy.num_hosts(), strategy.is_single_tower(), strategy.num_towers_per_host(),
                              replicas, cores);
  return expect_devices(strategy, replicas, [](unsigned r) { return 2 * r; });
}

}  // namespace

// strategy.extended: the same facts under TF 2.x's names, and v1's steps_per_run.
Status extended_names(unsigned cores) {
  const TPUStrategy strategy = RT_TRY(TPUStrategy::for_board({.steps_per_run = 4}));
  const rt::tpu::TPUExtended extended = strategy.extended();
  if (extended.steps_per_run() != 4 || extended.experimental_between_graph() || !extended.experimental_should_init() ||
      !extended.should_checkpoint() || !extended.should_save_summary() || extended.num_hosts() != 1 ||
      extended.num_replicas_per_host() != cores)
    return rt::internal_error("extended: steps_per_run {} between_graph {} should_init {} num_hosts {} "
                              "num_replicas_per_host {}, expected 4 false true 1 {}", extended.steps_per_run(),
                              extended.experimental_between_graph(), extended.experimental_should_init(),
                              extended.num_hosts(), extended.num_replicas_per_host(), cores);
  DeviceName job_host;
  rt::format_to(job_host, "/job:localhost/replica:0/task:0/device:CPU:0");
  RT_RETURN_IF_ERROR(expect_name(extended.non_slot_devices(), job_host, "extended.non_slot_devices"));
  const rt::tpu::WorkerDevices workers = extended.worker_devices();
  if (workers.count != cores) return rt::internal_error("extended: {} worker devices, expected {}", workers.count, cores);
  for (unsigned r = 0; r < cores; ++r)
    RT_RETURN_IF_ERROR(expect_name(workers.names[r], tpu_device(r), "extended.worker_devices"));
  return Status::ok();
}

// The contrib page's example: call_for_each_tower(fn, worker_device_index), where fn(device_id)
// runs on worker_devices[device_id]; here fn returns 10 * device_id, so replica r gives 10r. And the
// TPU system's initialize / finalize.
Status worker_device_index_example(unsigned cores) {
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board());
  const DistributedValue index = RT_TRY(strategy.worker_device_index());
  if ((cores == 1) != (index.kind() == rt::tpu::ValueKind::kPlain))
    return rt::internal_error("worker_device_index on {} cores: kind {}", cores, static_cast<int>(index.kind()));
  auto fn = [](StrategyReplicaContext& context, const Tensor& device_id) -> Result<Tensor> {
    return rt::binary(context.arena(), rt::BinaryOp::kMul, device_id, int32_t{10});
  };
  const rt::tpu::RunResult result = RT_TRY(strategy.call_for_each_tower(fn, index));
  for (unsigned r = 0; r < cores; ++r) {
    const Tensor& got = result[0].component(r);
    if (got.dtype != rt::DType::kI32 || got.values<int32_t>()[0] != static_cast<int32_t>(10 * r))
      return rt::internal_error("call_for_each_tower: replica {} gave {}, expected int32 {}", r,
                                got.dtype == rt::DType::kI32 ? got.values<int32_t>()[0] : -1, 10 * r);
  }
  const rt::tpu::Topology topology = RT_TRY(strategy.initialize());
  const rt::tpu::MeshShape expected = rt::tpu::Topology::default_mesh_shape(static_cast<int>(cores));
  for (int d = 0; d < rt::tpu::kMeshRank; ++d)
    if (topology.mesh_shape()[d] != expected[d]) return rt::internal_error("initialize: mesh dimension {} differs", d);
  return strategy.finalize();
}

Status run_host_cases(unsigned cores) {
  RT_RETURN_IF_ERROR(without_assignment(cores));
  RT_RETURN_IF_ERROR(with_assignment(cores));
  RT_RETURN_IF_ERROR(extended_names(cores));
  return worker_device_index_example(cores);
}

}  // namespace strategy_test
