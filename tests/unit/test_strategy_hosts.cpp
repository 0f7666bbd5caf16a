// TPUStrategy's hosts and devices on a board (runtime/tpu/strategy/strategy_hosts): TF's local TPU,
// one host. Expected names and counts are written out by hand from TF's definitions (worker devices
// "/job:localhost/replica:0/task:0/device:TPU:k", the host's CPU, num_replicas_per_host =
// min(replicas, cores / cores per replica)).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "runtime/tpu/strategy/strategy_hosts.hpp"

namespace {

using rt::tpu::DeviceAssignment;
using rt::tpu::Topology;
using rt::tpu::TPUClusterResolver;

std::vector<std::string> names(const rt::tpu::WorkerDevices& devices) {
  std::vector<std::string> out;
  for (const rt::tpu::DeviceName& name : devices.span()) out.emplace_back(name.view().data(), name.view().size());
  return out;
}

std::string tpu(int k) { return "/job:localhost/replica:0/task:0/device:TPU:" + std::to_string(k); }

TPUClusterResolver resolver_of(unsigned cores) { return *TPUClusterResolver::for_cores(cores); }

template <class T>
std::string error_text(const rt::Result<T>& result) {
  return result.is_ok() ? "(no error)" : std::string(result.status().message().data(), result.status().message().size());
}

}  // namespace

TEST_CASE("a board's resolver is TF's local TPU: task worker 0, master empty, a TPU per core", "[strategy]") {
  const TPUClusterResolver resolver = resolver_of(8);
  CHECK(std::string(resolver.task_type().data(), resolver.task_type().size()) == "worker");
  CHECK(resolver.task_id() == 0);
  CHECK(resolver.master().empty());
  CHECK(resolver.num_accelerators() == 8);
}

TEST_CASE("without a device assignment: one host, every core a worker device in core order", "[strategy]") {
  for (unsigned cores : {1u, 4u, 8u, 16u}) {
    const TPUClusterResolver resolver = resolver_of(cores);
    CHECK(rt::tpu::strategy_num_hosts(resolver, nullptr) == 1);
    CHECK(rt::tpu::strategy_num_replicas_per_host(resolver, nullptr) == cores);
    std::vector<std::string> expected;
    for (unsigned k = 0; k < cores; ++k) expected.push_back(tpu(static_cast<int>(k)));
    CHECK(names(rt::tpu::strategy_worker_devices(resolver, nullptr)) == expected);
  }
}

TEST_CASE("with a device assignment of two-core replicas on 8 cores: devices of logical core 0", "[strategy]") {
  // Mesh [1,2,2,2]: chip (y, z) holds cores 2 * (y + 2z) and the next; a [1,1,1,2] computation takes
  // one chip per replica. In mesh order replica r is chip r (logical core 0 on core 2r); filling the
  // mesh, TF's default order is a ring over the 2x2 chips: (0,0) (1,0) (1,1) (0,1), cores 0 2 6 4.
  const Topology topology = *Topology::for_cores(8);
  const int32_t shape[] = {1, 1, 1, 2};
  const rt::Span<const int32_t> chip(shape, 4);
  const TPUClusterResolver resolver = resolver_of(8);
  const DeviceAssignment mesh = *DeviceAssignment::build(topology, chip, {}, 4, rt::tpu::DeviceOrderMode::kMesh);
  CHECK(names(rt::tpu::strategy_worker_devices(resolver, &mesh)) == std::vector<std::string>{tpu(0), tpu(2), tpu(4), tpu(6)});
  const DeviceAssignment four = *DeviceAssignment::build(topology, chip, {}, 4);
  CHECK(names(rt::tpu::strategy_worker_devices(resolver, &four)) == std::vector<std::string>{tpu(0), tpu(2), tpu(6), tpu(4)});
  CHECK(rt::tpu::strategy_num_replicas_per_host(resolver, &four) == 4);  // min(4, 8 / 2)
  CHECK(rt::tpu::strategy_num_hosts(resolver, &four) == 1);
  const DeviceAssignment two = *DeviceAssignment::build(topology, chip, {}, 2);
  CHECK(rt::tpu::strategy_num_replicas_per_host(resolver, &two) == 2);  // min(2, 4)
  CHECK(names(rt::tpu::strategy_worker_devices(resolver, &two)) == std::vector<std::string>{tpu(0), tpu(2)});
}

TEST_CASE("the host's CPU: get_host_cpu_device names it for any id on a local TPU", "[strategy]") {
  for (int host_id : {0, 1, 5}) {
    const rt::tpu::DeviceName name = rt::tpu::strategy_host_cpu_device(resolver_of(8), host_id);
    CHECK(std::string(name.view().data(), name.view().size()) == "/replica:0/task:0/device:CPU:0");
  }
  const rt::tpu::DeviceName non_slot = rt::tpu::strategy_non_slot_device(resolver_of(8));
  CHECK(std::string(non_slot.view().data(), non_slot.view().size()) == "/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST_CASE("a pod of boards: each board a task of job worker, hosts counted by task", "[strategy][pod]") {
  // Task 1 of two boards of 4 cores: TF's remote TPU workers, 8 replicas, 4 per host.
  const TPUClusterResolver resolver = *TPUClusterResolver::for_pod(4, 1, 2);
  CHECK(resolver.task_id() == 1);
  CHECK(resolver.num_tasks() == 2);
  CHECK(resolver.num_accelerators() == 4);
  CHECK(rt::tpu::strategy_num_replicas(resolver, nullptr) == 8);
  CHECK(rt::tpu::strategy_num_hosts(resolver, nullptr) == 2);
  CHECK(rt::tpu::strategy_num_replicas_per_host(resolver, nullptr) == 4);
  const std::vector<std::string> devices = names(rt::tpu::strategy_worker_devices(resolver, nullptr));
  REQUIRE(devices.size() == 8);
  CHECK(devices[0] == "/job:worker/replica:0/task:0/device:TPU:0");
  CHECK(devices[3] == "/job:worker/replica:0/task:0/device:TPU:3");
  CHECK(devices[4] == "/job:worker/replica:0/task:1/device:TPU:0");
  CHECK(devices[7] == "/job:worker/replica:0/task:1/device:TPU:3");
  const rt::tpu::DeviceName cpu = rt::tpu::strategy_host_cpu_device(resolver, 1);
  CHECK(std::string(cpu.view().data(), cpu.view().size()) == "/job:worker/replica:0/task:1/device:CPU:0");
  const rt::tpu::DeviceName non_slot = rt::tpu::strategy_non_slot_device(resolver);
  CHECK(std::string(non_slot.view().data(), non_slot.view().size()) == "/job:worker/replica:0/task:0/device:CPU:0");
  // The pod's topology: two [1,1,2,2] boards stacked along z into [1,1,4,2]. Two replicas of a whole
  // board each (computation shape [1,1,2,2]) sit on one task each: two hosts; one replica: one.
  const Topology topology = *resolver.initialize_tpu_system();
  CHECK(topology.num_tasks() == 2);
  const int32_t chip[] = {1, 1, 2, 2};
  const DeviceAssignment across = *DeviceAssignment::build(topology, rt::Span<const int32_t>(chip, 4), {}, 2);
  CHECK(rt::tpu::strategy_num_hosts(resolver, &across) == 2);
  CHECK(names(rt::tpu::strategy_worker_devices(resolver, &across)) ==
        std::vector<std::string>{"/job:worker/replica:0/task:0/device:TPU:0", "/job:worker/replica:0/task:1/device:TPU:0"});
  const DeviceAssignment one = *DeviceAssignment::build(topology, rt::Span<const int32_t>(chip, 4), {}, 1);
  CHECK(rt::tpu::strategy_num_hosts(resolver, &one) == 1);
  CHECK(TPUClusterResolver::for_pod(8, 0, 4)->num_cluster_cores() == 32);  // above one board's 16 cores
  CHECK(error_text(TPUClusterResolver::for_pod(16, 0, 5)) ==
        "a TPU cluster of 5 boards of 16 cores has 80 cores; the runtime's tables hold 1 to 64 (kMaxPodDevices) in "
        "all, 1 to 16 (hal::kMaxCores) per board");
  CHECK(error_text(TPUClusterResolver::for_pod(17, 0, 2)) ==
        "a TPU cluster of 2 boards of 17 cores has 34 cores; the runtime's tables hold 1 to 64 (kMaxPodDevices) in "
        "all, 1 to 16 (hal::kMaxCores) per board");
  CHECK(error_text(TPUClusterResolver::for_pod(1, 0, 17)) ==
        "a TPU cluster has at most 16 boards (kMaxPodTasks), got 17");
  CHECK(error_text(TPUClusterResolver::for_pod(4, 2, 2)) == "task 2 is not one of a pod's 2 tasks");
}
