// A pod's host side without MPI (host-tools/lib/pod): reading Open MPI's launch variables, the mpirun
// command `tpu run --boards K` runs, and the check that a pod's boards agree. Expected values are
// written out by hand from Open MPI's documented variables and flags.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "host-tools/lib/pod/pod_environment.hpp"
#include "host-tools/lib/pod/pod_launcher.hpp"
#include "host-tools/lib/pod/pod_records.hpp"

namespace {

std::map<std::string, std::string> fake_environment;

const char* fake_lookup(const char* name) {
  const auto found = fake_environment.find(name);
  return found == fake_environment.end() ? nullptr : found->second.c_str();
}

std::optional<tpu::PodRank> detect(const std::map<std::string, std::string>& variables, std::string& error) {
  fake_environment = variables;
  return tpu::detect_pod_rank(error, fake_lookup);
}

}  // namespace

TEST_CASE("a rank of a pod is read from Open MPI's launch variables", "[pod]") {
  std::string error;
  const std::optional<tpu::PodRank> rank =
      detect({{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}}, error);
  REQUIRE(rank.has_value());
  CHECK(error.empty());
  CHECK(rank->rank == 2);
  CHECK(rank->size == 4);
  CHECK(rank->local_rank == 0);
  CHECK(!rank->host.empty());
}

TEST_CASE("no mpirun, or a single rank, is a single board", "[pod]") {
  std::string error;
  CHECK(!detect({}, error).has_value());
  CHECK(error.empty());
  CHECK(!detect({{"OMPI_COMM_WORLD_SIZE", "1"}, {"OMPI_COMM_WORLD_RANK", "0"}}, error).has_value());
  CHECK(error.empty());
}

TEST_CASE("malformed or foreign launch variables are errors", "[pod]") {
  std::string error;
  CHECK(!detect({{"OMPI_COMM_WORLD_SIZE", "two"}, {"OMPI_COMM_WORLD_RANK", "0"}}, error).has_value());
  CHECK(error == "OMPI_COMM_WORLD_SIZE=\"two\" is not a rank number");
  CHECK(!detect({{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_RANK", "2"}}, error).has_value());
  CHECK(error == "Open MPI's launch variables disagree: OMPI_COMM_WORLD_RANK 2, OMPI_COMM_WORLD_SIZE 2");
  CHECK(!detect({{"OMPI_COMM_WORLD_SIZE", "2"}}, error).has_value());
  CHECK(error == "Open MPI's launch variables disagree: OMPI_COMM_WORLD_RANK is unset, OMPI_COMM_WORLD_SIZE 2");
  CHECK(!detect({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}}, error).has_value());
  CHECK(error.find("needs Open MPI's mpirun") != std::string::npos);
}

TEST_CASE("tpu run --boards K becomes mpirun of K ranks of the same tpu", "[pod]") {
  tpu::PodLaunch launch;
  launch.boards = 3;
  launch.tpu_path = "/repo/build/host-tools/tpu";
  launch.tpu_arguments = {"run", "--boards", "3", "--board", "host", "pod"};
  const std::vector<std::string> expected = {
      "mpirun", "-n", "3", "--oversubscribe", "--bind-to", "none", "--stdin", "none", "--mca", "plm", "isolated",
      "--mca", "btl", "self,vader", "--mca", "btl_base_warn_component_unused", "0", "--mca", "mpi_yield_when_idle",
      "1", "/repo/build/host-tools/tpu", "run", "--boards", "3", "--board", "host", "pod"};
  CHECK(tpu::mpirun_command(launch) == expected);
  launch.as_root = true;
  launch.extra_mpirun_arguments = " --mca btl_vader_single_copy_mechanism  none ";
  const std::vector<std::string> command = tpu::mpirun_command(launch);
  const std::vector<std::string> tail(command.begin() + 20, command.end());
  CHECK(tail == std::vector<std::string>{"--allow-run-as-root", "--mca", "btl_vader_single_copy_mechanism", "none",
                                         "/repo/build/host-tools/tpu", "run", "--boards", "3", "--board", "host", "pod"});
}

TEST_CASE("a pod's boards must agree: kind, cores, program, link", "[pod]") {
  using tpu::make_pod_record;
  const auto record = [](unsigned rank, const std::string& board, unsigned cores, const std::string& target,
                         const std::string& link) { return make_pod_record(rank, "a", board, cores, target, link); };
  CHECK(tpu::check_pod_records({record(0, "host", 2, "pod", "auto"), record(1, "host", 2, "pod", "auto")}).empty());
  CHECK(tpu::check_pod_records({record(0, "host", 2, "pod", "auto"), record(1, "host", 1, "pod", "auto")}) ==
        "the pod's boards disagree: rank 1 (host a, board host) boots 1 core, rank 0 (host a, board host) boots 2 "
        "cores; every board of a pod boots the same number of cores (--cores)");
  CHECK(tpu::check_pod_records({record(0, "host", 0, "pod", "auto"), record(1, "host", 4, "pod", "auto")}) ==
        "the pod's boards disagree: rank 1 (host a, board host) boots 4 cores, rank 0 (host a, board host) boots the "
        "board's default cores; every board of a pod boots the same number of cores (--cores)");
  CHECK(tpu::check_pod_records({record(0, "host", 2, "pod", "auto"), record(1, "qemu-virt-a53", 2, "pod", "auto")}) ==
        "the pod's boards disagree: rank 1 (host a, board qemu-virt-a53) runs board qemu-virt-a53, rank 0 (host a, "
        "board host) runs host; a pod's boards are one kind (--board)");
  CHECK(tpu::check_pod_records({record(0, "host", 2, "pod", "auto"), record(1, "host", 2, "hello", "auto")}) ==
        "the pod's boards disagree: rank 1 (host a, board host) runs hello, rank 0 (host a, board host) runs pod; "
        "every board of a pod runs the same program");
  CHECK(tpu::check_pod_records({record(0, "qemu-virt-a53", 2, "pod", "shm"), record(1, "qemu-virt-a53", 2, "pod", "auto")}) ==
        "the pod's boards disagree: rank 1 (host a, board qemu-virt-a53) uses the auto link, rank 0 (host a, board "
        "qemu-virt-a53) the shm link; every board of a pod uses the same link (--link)");
  tpu::PodRankRecord unbuilt = record(1, "host", 2, "pod", "auto");
  unbuilt.ready = 0;
  CHECK(tpu::check_pod_records({record(0, "host", 2, "pod", "auto"), unbuilt}) ==
        "rank 1 (host a, board host) could not build its image (its lines above say why)");
  CHECK(tpu::check_pod_records({record(1, "host", 2, "pod", "auto"), record(0, "host", 2, "pod", "auto")}) ==
        "the pod's rank records are out of order: entry 0 says rank 1");
  const std::string long_target(400, 'x');  // cut to the field, never overrun
  CHECK(std::string(record(0, "host", 2, long_target, "auto").target).size() == sizeof(tpu::PodRankRecord::target) - 1);
}
