// A pod's host side without MPI (host-tools/lib/pod): reading Open MPI's launch variables, the mpirun
// command `tpu run --boards K` runs, the check that a pod's boards agree, and the host's part of a
// reduction across boards (its request text, the left fold, the deferred .pod call over a fake exchange). Expected values are
// written out by hand from Open MPI's documented variables and flags.
#include <catch2/catch.hpp>

#include "pod_request_of.hpp"

#include <cmath>
#include <cstring>
#include <chrono>
#include <map>
#include <set>
#include <random>
#include <thread>
#include <sstream>
#include <string>
#include <vector>

#include "host-tools/lib/pod/pod_collectives.hpp"
#include "host-tools/lib/pod/pod_environment.hpp"
#include "host-tools/lib/pod/pod_launcher.hpp"
#include "host-tools/lib/pod/pod_records.hpp"
#include "host-tools/lib/pod/tf_config.hpp"

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
  launch.network = "tcp";
  const std::vector<std::string> command = tpu::mpirun_command(launch);
  const std::vector<std::string> network(command.begin() + 11, command.begin() + 17);
  CHECK(network == std::vector<std::string>{"--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo"});
  const std::vector<std::string> tail(command.begin() + 23, command.end());
  CHECK(tail == std::vector<std::string>{"--allow-run-as-root", "--mca", "btl_vader_single_copy_mechanism", "none",
                                         "/repo/build/host-tools/tpu", "run", "--boards", "3", "--board", "host", "pod"});
}

TEST_CASE("a pod of different kinds: mpirun's MPMD form, one board per rank", "[pod]") {
  tpu::PodLaunch launch;
  launch.tpu_path = "/t/tpu";
  launch.tpu_arguments = {"run", "--boards", "2", "--board", "host,qemu-virt-a53", "--cores", "2", "pod"};
  launch.board_of_rank = {"host", "qemu-virt-a53"};
  const std::vector<std::string> command = tpu::mpirun_command(launch);
  CHECK(command[2] == "1");
  const std::vector<std::string> ranks(command.begin() + 20, command.end());
  CHECK(ranks == std::vector<std::string>{"/t/tpu", "run", "--boards", "2", "--board", "host", "--cores", "2", "pod", ":",
                                          "-n", "1", "/t/tpu", "run", "--boards", "2", "--board", "qemu-virt-a53",
                                          "--cores", "2", "pod"});
  CHECK(tpu::with_board({"run", "--board=host,raspi3b", "x"}, "raspi3b") ==
        std::vector<std::string>{"run", "--board=raspi3b", "x"});
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
  // Kinds may differ when every rank boots the cores it was given.
  CHECK(tpu::check_pod_records({record(0, "host", 2, "pod", "auto"), record(1, "qemu-virt-a53", 2, "pod", "auto")}).empty());
  CHECK(tpu::check_pod_records({record(0, "host", 0, "pod", "auto"), record(1, "qemu-virt-a53", 0, "pod", "auto")}) ==
        "the pod's boards disagree: rank 1 (host a, board qemu-virt-a53) runs board qemu-virt-a53, rank 0 (host a, "
        "board host) runs host; boards of different kinds form a pod with the same --cores given to every rank");
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

// ---------------------------------------------------------------- collectives across boards

namespace {

std::vector<uint8_t> bytes_of(const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<float> floats_of(const std::vector<uint8_t>& bytes) {
  std::vector<float> values(bytes.size() / 4);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

// Rows of the other ranks, handed over when the test says they arrived.
class FakeExchange final : public tpu::RowExchange {
 public:
  explicit FakeExchange(unsigned rank = 1) : rank_(rank) {}
  unsigned my_rank() const override { return rank_; }
  int start_exchange(const std::vector<unsigned>& ranks, int tag, const std::string& signature,
                     std::vector<std::span<const uint8_t>> out, std::vector<std::span<uint8_t>> into) override {
    signatures.push_back(signature);
    std::vector<size_t> sizes;  // what arrives from each rank (this one: what it sends the first other)
    size_t other = 0;
    while (other < ranks.size() && ranks[other] == my_rank()) ++other;
    for (size_t i = 0; i < ranks.size(); ++i) sizes.push_back(ranks[i] == my_rank() ? out[other].size() : into[i].size());
    std::vector<std::vector<uint8_t>> outs;
    for (const std::span<const uint8_t> row : out) outs.emplace_back(row.begin(), row.end());
    started.push_back({ranks, tag, sizes, std::move(into), std::move(outs), std::move(out)});
    return static_cast<int>(started.size()) - 1;
  }
  // Done once the test put the other rows in `arrived`: they land in the buffers given.
  std::optional<bool> exchange_done(int id, std::string& error) override {
    if (failed.count(id) != 0) {
      error = "MPI_ERR_OTHER";
      return std::nullopt;
    }
    if (arrived.count(id) == 0) return false;
    for (size_t i = 0; i < started[id].ranks.size(); ++i)
      if (started[id].ranks[i] != my_rank()) {
        REQUIRE(arrived[id][i].size() == started[id].into[i].size());
        std::copy(arrived[id][i].begin(), arrived[id][i].end(), started[id].into[i].begin());
      }
    return true;
  }
  // The test's word that a rank's signature arrived, different from this one's.
  std::optional<Disagreement> disagreement(int id) override {
    const auto found = disagreeing.find(id);
    if (found == disagreeing.end()) return std::nullopt;
    return found->second;
  }
  // Every other rank until the test says the rows arrived.
  std::vector<unsigned> silent_ranks(int id) const override {
    std::vector<unsigned> silent;
    if (arrived.count(id) == 0)
      for (const unsigned rank : started[id].ranks)
        if (rank != my_rank()) silent.push_back(rank);
    return silent;
  }
  void end_exchange(int id) override { ended.push_back(id); }
  void cancel_exchange(int id) override { cancelled.push_back(id); }
  struct Started {
    std::vector<unsigned> ranks;
    int tag;
    std::vector<size_t> sizes;
    std::vector<std::span<uint8_t>> into;
    std::vector<std::vector<uint8_t>> outs;  // what goes to each rank (this one's entry too)
    std::vector<std::span<const uint8_t>> sends;  // where MPI would read it: must stay alive until the exchange ends
  };
  std::set<int> failed;  // exchanges MPI reports an error for
  std::vector<int> ended, cancelled;
  std::vector<Started> started;
  std::map<int, std::vector<std::vector<uint8_t>>> arrived;
  std::vector<std::string> signatures;     // each exchange's, in order
  std::map<int, Disagreement> disagreeing;  // exchanges another rank signed differently

 private:
  unsigned rank_;
};

}  // namespace

TEST_CASE("a pod's request is read from its text: the group's tasks, each board's part", "[pod]") {
  const tpu::PodRequest reduce = request_of("all_reduce op=max type=int32 count=7 members=2,0,2,1 source=0 seq=12 first=3");
  CHECK(reduce.op == "max");
  CHECK(reduce.type == rt::DType::kI32);
  CHECK(reduce.count == 7);
  CHECK(reduce.tasks() == std::vector<unsigned>{2, 0, 1});  // order of first appearance
  CHECK(reduce.row_bytes(0, 2) == 28);
  CHECK(reduce.result_bytes() == 28);
  CHECK(tpu::pod_tag(reduce) == 12 * 16 * 64 + 3);  // (sequence * kMaxCores + logical core) * kMaxPodDevices + first
  // A group whose first member is a pod's last replica stays apart from the next sequence number.
  const tpu::PodRequest last = request_of("all_reduce op=max type=int32 count=7 members=2,3 source=0 seq=12 first=63");
  CHECK(tpu::pod_tag(last) == 12 * 16 * 64 + 63);
  CHECK(tpu::pod_tag(last) < tpu::pod_tag(request_of("all_reduce op=max type=int32 count=7 members=2,3 source=0 seq=13 first=0")));
  // The same group's call from a replica's second logical core (model parallelism) has a tag of its own.
  const tpu::PodRequest second_core = request_of("all_reduce op=max type=int32 count=7 members=2,0,2,1 source=0 seq=12 "
                                                 "first=3 lc=1");
  CHECK(second_core.logical_core == 1);
  CHECK(tpu::pod_tag(second_core) == (12 * 16 + 1) * 64 + 3);
  CHECK(tpu::pod_tag(second_core) != tpu::pod_tag(reduce));
  const tpu::PodRequest gather = request_of("all_gather op=sum type=float32 count=2 members=0,1,1 source=0 seq=1 first=0");
  CHECK(gather.row_bytes(0, 1) == 8);
  CHECK(gather.row_bytes(1, 0) == 16);
  CHECK(gather.result_bytes() == 24);
  const tpu::PodRequest broadcast = request_of("broadcast op=sum type=float32 count=3 members=0,1 source=1 seq=1 first=0");
  CHECK(broadcast.row_bytes(0, 1) == 0);
  CHECK(broadcast.row_bytes(1, 0) == 12);
  const tpu::PodRequest rows = request_of("rows op=sum type=int8 count=0 sizes=5,0,9 source=0 seq=2 first=15");
  CHECK(rows.tasks() == std::vector<unsigned>{0, 1, 2});
  CHECK(rows.row_bytes(2, 0) == 9);
  CHECK(rows.result_bytes() == 14);
  std::string error;
  CHECK(!tpu::parse_pod_request("gather op=sum", error));
  CHECK(error == "the pod's collectives are all_reduce, all_gather, broadcast, barrier, reduce_scatter, all_to_all, "
                 "collective_permute and rows, not 'gather'");
  CHECK(!tpu::parse_pod_request("all_reduce op=mean type=float32 count=1 members=0,1 source=0 seq=1 first=0", error));
  CHECK(!tpu::parse_pod_request("all_reduce op=sum type=float32 count=1 members=0,1 source=0 seq=1 first=0 lc=16", error));
  CHECK(!tpu::parse_pod_request("all_reduce op=sum type=bfloat16 count=1 members=0,1 source=0 seq=1 first=0", error));
  CHECK(!tpu::parse_pod_request("all_reduce op=sum type=float32 count=1 members=0,0 source=0 seq=1 first=0", error));
  CHECK(error == "a collective across boards has members on at least two tasks, this one '0,0'");
  CHECK(!tpu::parse_pod_request("broadcast op=sum type=float32 count=1 members=0,1 source=2 seq=1 first=0", error));
  CHECK(error == "source position 2 is outside the group of 2");
}

TEST_CASE("the boards' parts combine: a left fold in task order, blocks in group order", "[pod]") {
  const tpu::PodRequest sum = request_of("all_reduce op=sum type=float32 count=2 members=0,1,2 source=0 seq=0 first=0");
  // (1e8 + 1) - 1e8 = 0 in float32 (1e8 + 1 rounds to 1e8), where 1 + (1e8 - 1e8) would be 1: the
  // order is the left fold, rounding after every addition.
  CHECK(floats_of(tpu::combine_rows(sum, {bytes_of({1e8f, 2}), bytes_of({1, 3}), bytes_of({-1e8f, 4})})) ==
        std::vector<float>{0, 9});
  // int32 sums wrap; max and min as the board takes them: max(+0, -0) is -0, a NaN on the left wins.
  const tpu::PodRequest wrap = request_of("all_reduce op=sum type=int32 count=1 members=0,1 source=0 seq=0 first=0");
  const int32_t big = 2147483647, one = 1;
  std::vector<uint8_t> a(4), b(4);
  std::memcpy(a.data(), &big, 4);
  std::memcpy(b.data(), &one, 4);
  int32_t result = 0;
  std::memcpy(&result, tpu::combine_rows(wrap, {a, b}).data(), 4);
  CHECK(result == -2147483647 - 1);
  const tpu::PodRequest max = request_of("all_reduce op=max type=float32 count=2 members=0,1 source=0 seq=0 first=0");
  const std::vector<float> maxima = floats_of(tpu::combine_rows(max, {bytes_of({0.0f, NAN}), bytes_of({-0.0f, 5})}));
  CHECK(std::signbit(maxima[0]));
  CHECK(std::isnan(maxima[1]));
  // all_gather over members on tasks 1, 0, 1: position 0 from task 1's row (its first block), 1 from
  // task 0's, 2 from task 1's second block. Rows come in task order (1, 0).
  const tpu::PodRequest gather = request_of("all_gather op=sum type=float32 count=1 members=1,0,1 source=0 seq=0 first=0");
  CHECK(floats_of(tpu::combine_rows(gather, {bytes_of({10, 30}), bytes_of({20})})) == std::vector<float>{10, 20, 30});
  const tpu::PodRequest broadcast = request_of("broadcast op=sum type=float32 count=1 members=0,1 source=1 seq=0 first=0");
  CHECK(floats_of(tpu::combine_rows(broadcast, {{}, bytes_of({7})})) == std::vector<float>{7});
}

TEST_CASE("a .pod call is answered once every board's part arrived", "[pod]") {
  FakeExchange exchange;
  tpu::PodCollectives collectives(exchange);
  tpu::HostFunctions functions(tpu::HostEnvironment{});
  collectives.serve(functions);
  std::optional<tpu::HostCallOutcome> answer;
  tpu::HostCallRequest call;
  call.function = ".pod";
  call.text = "all_reduce op=sum type=float32 count=2 members=1,0 source=0 seq=4 first=2";
  call.tensors = {tpu::HostTensor::of<float>({2}, {10, 20})};
  auto keep = [&answer](tpu::HostCallOutcome outcome) {
    outcome.materialize();  // its writer reads buffers that live only during the reply
    answer = std::move(outcome);
  };
  functions.call(call, keep);
  REQUIRE(exchange.started.size() == 1);
  CHECK(exchange.started[0].ranks == std::vector<unsigned>{1, 0});
  CHECK(exchange.started[0].sizes == std::vector<size_t>{8, 8});
  CHECK(exchange.started[0].tag == 4 * 16 * 64 + 2);  // (seq * kMaxCores + logical core 0) * kMaxPodDevices + first
  collectives.pump();
  CHECK(!answer.has_value());
  CHECK(collectives.busy());
  std::ostringstream open_calls;  // what tpu says if the board ended now: whose part never came
  collectives.report_unfinished(open_calls);
  CHECK(open_calls.str() == "tpu: the board ended in all_reduce #4 across boards; no part came from task 0 (all_reduce sum "
                            "of 2 float32)\n");
  exchange.arrived[0] = {{}, bytes_of({1.5f, 2.5f})};  // task 0's row; this board (task 1) comes first
  collectives.pump();
  REQUIRE(answer.has_value());
  REQUIRE(answer->code == rt::StatusCode::kOk);
  CHECK(answer->results[0].values<float>() == std::vector<float>{11.5f, 22.5f});
  CHECK(!collectives.busy());
  CHECK(exchange.ended == std::vector<int>{0});
  // A part that does not match its text is refused at once.
  call.tensors = {tpu::HostTensor::of<float>({3}, {1, 2, 3})};
  functions.call(call, keep);
  CHECK(answer->code == rt::StatusCode::kInvalidArgument);
  CHECK(answer->message == "this board's part of 'all_reduce op=sum type=float32 count=2 members=1,0 source=0 seq=4 "
                           "first=2' should be 8 bytes of float32, it is float32[3]");
}

TEST_CASE("the other boards' rows arrive in buffers kept from call to call", "[pod]") {
  FakeExchange exchange;
  tpu::PodCollectives collectives(exchange);
  tpu::HostFunctions functions(tpu::HostEnvironment{});
  collectives.serve(functions);
  tpu::HostCallRequest call;
  call.function = ".pod";
  std::vector<float> sums;
  auto keep = [&sums](tpu::HostCallOutcome outcome) {
    outcome.materialize();
    REQUIRE(outcome.code == rt::StatusCode::kOk);
    sums = outcome.results[0].values<float>();
  };
  for (uint32_t sequence = 0; sequence < 3; ++sequence) {
    call.text = "all_reduce op=sum type=float32 count=2 members=1,0 source=0 seq=" + std::to_string(sequence) + " first=0";
    call.tensors = {tpu::HostTensor::of<float>({2}, {1, 2})};
    functions.call(call, keep);
    exchange.arrived[static_cast<int>(sequence)] = {{}, bytes_of({10.0f * float(sequence), 0.5f})};
    collectives.pump();
    CHECK(sums == std::vector<float>{1 + 10.0f * float(sequence), 2.5f});
  }
  // Task 0's row (position 1: this board, task 1, comes first) landed in the same buffer every time.
  REQUIRE(exchange.started.size() == 3);
  CHECK(exchange.started[1].into[1].data() == exchange.started[0].into[1].data());
  CHECK(exchange.started[2].into[1].data() == exchange.started[0].into[1].data());
  // Two calls in flight at once never share one.
  call.text = "all_reduce op=sum type=float32 count=2 members=1,0 source=0 seq=7 first=0";
  functions.call(call, keep);
  call.text = "all_reduce op=sum type=float32 count=2 members=1,0 source=0 seq=8 first=0";
  functions.call(call, keep);
  REQUIRE(exchange.started.size() == 5);
  CHECK(exchange.started[3].into[1].data() != exchange.started[4].into[1].data());
}

namespace {

// A .pod call served by `collectives`, its outcome kept once the call ends (materialized: a reply the
// link does not place in board memory copies its result out).
struct PodCaller {
  explicit PodCaller(tpu::PodCollectives& collectives) { collectives.serve(functions); }
  void call(const std::string& text, const std::vector<float>& values, unsigned core = 0, uint32_t id = 0) {
    tpu::HostCallRequest request;
    request.function = ".pod";
    request.core = core;
    request.id = id;
    request.text = text;
    request.tensors = {tpu::HostTensor::of<float>({static_cast<int64_t>(values.size())}, values)};
    functions.call(request, [this](tpu::HostCallOutcome outcome) {
      outcome.materialize();
      answer = std::move(outcome);
    });
  }
  tpu::HostFunctions functions{tpu::HostEnvironment{}};
  std::optional<tpu::HostCallOutcome> answer;
};

}  // namespace

TEST_CASE("a large all_reduce is split: this task folds its piece into the board's output, then the pieces go round",
          "[pod]") {
  FakeExchange exchange;  // this board is task 1 of 0, 1, 2
  tpu::PodCollectives collectives(exchange);
  std::vector<float> board_output(7, -1.0f);  // where the board wants the result (not its input)
  std::vector<std::string> claims;
  unsigned released = 0;
  collectives.write_results_in_place(
      [&](unsigned core, uint32_t id, size_t bytes) {
        claims.push_back(std::to_string(core) + "/" + std::to_string(id) + "/" + std::to_string(bytes));
        return reinterpret_cast<uint8_t*>(board_output.data());
      },
      [&](unsigned core, uint32_t id) { released += core == 3 && id == 41 ? 1 : 100; }, 16);
  PodCaller pod(collectives);
  pod.call("all_reduce op=sum type=float32 count=7 members=0,1,2 source=0 seq=5 first=0", {100, 200, 1, 6, 300, 400, 500},
           3, 41);
  std::optional<tpu::HostCallOutcome>& answer = pod.answer;
  CHECK(claims.empty());  // not while the other boards' pieces are waited for
  // Pieces of 7 over 3 tasks: elements [0, 2), [2, 4), [4, 7). Task p gets this part's piece p, and
  // every other task's piece 1 comes here.
  REQUIRE(exchange.started.size() == 1);
  CHECK(exchange.started[0].ranks == std::vector<unsigned>{0, 1, 2});
  CHECK(floats_of(exchange.started[0].outs[0]) == std::vector<float>{100, 200});
  CHECK(floats_of(exchange.started[0].outs[2]) == std::vector<float>{300, 400, 500});
  CHECK(exchange.started[0].sizes == std::vector<size_t>{8, 8, 8});
  // Tasks 0 and 2's pieces 1: the left fold in task order, (1e8 + 1) - 1e8 = 0 in float32.
  exchange.arrived[0] = {bytes_of({1e8f, 5}), {}, bytes_of({-1e8f, 7})};
  collectives.pump();
  CHECK(claims == std::vector<std::string>{"3/41/28"});
  CHECK(!answer.has_value());
  CHECK(board_output == std::vector<float>{-1, -1, 0, 18, -1, -1, -1});  // this task's piece, in place
  REQUIRE(exchange.started.size() == 2);
  CHECK(exchange.ended == std::vector<int>{0});
  CHECK(floats_of(exchange.started[1].outs[0]) == std::vector<float>{0, 18});
  CHECK(floats_of(exchange.started[1].outs[2]) == std::vector<float>{0, 18});
  CHECK(exchange.started[1].into[0].data() == reinterpret_cast<uint8_t*>(board_output.data()));  // straight in
  CHECK(exchange.started[1].into[2].data() == reinterpret_cast<uint8_t*>(board_output.data() + 4));
  CHECK(released == 0);
  exchange.arrived[1] = {bytes_of({11, 22}), {}, bytes_of({33, 44, 55})};  // the other tasks' folded pieces
  collectives.pump();
  REQUIRE(answer.has_value());
  REQUIRE(answer->code == rt::StatusCode::kOk);
  CHECK(answer->results[0].values<float>() == std::vector<float>{11, 22, 0, 18, 33, 44, 55});
  CHECK(board_output == std::vector<float>{11, 22, 0, 18, 33, 44, 55});
  CHECK(released == 1);  // handed back before the reply
  CHECK(!collectives.busy());
  // Below the size it splits from: one exchange of whole rows.
  pod.call("all_reduce op=sum type=float32 count=3 members=0,1 source=0 seq=6 first=0", {1, 2, 3});
  CHECK(claims.size() == 1);
  CHECK(exchange.started.back().sizes == std::vector<size_t>{12, 12});
}

TEST_CASE("a board whose output cannot be claimed splits the same all_reduce, through a buffer", "[pod]") {
  // Every board of a pod must exchange the same messages: a board on a serial line (nothing to claim)
  // or one whose target is taken splits as the others do, and its reply copies the result.
  FakeExchange exchange;  // task 1 of 0, 1
  tpu::PodCollectives collectives(exchange);
  unsigned claims = 0, released = 0;
  collectives.write_results_in_place(
      [&](unsigned, uint32_t, size_t) -> uint8_t* { return ++claims, nullptr; }, [&](unsigned, uint32_t) { ++released; },
      16);
  PodCaller pod(collectives);
  pod.call("all_reduce op=max type=float32 count=5 members=0,1 source=0 seq=2 first=0", {1, 9, 3, 7, 5});
  std::optional<tpu::HostCallOutcome>& answer = pod.answer;
  REQUIRE(exchange.started.size() == 1);  // pieces [0, 2) and [2, 5): task 0 gets this part's first
  CHECK(floats_of(exchange.started[0].outs[0]) == std::vector<float>{1, 9});
  CHECK(exchange.started[0].into[0].size() == 12);
  exchange.arrived[0] = {bytes_of({4, 4, 4}), {}};  // task 0's piece 1
  collectives.pump();
  CHECK(claims == 1);
  REQUIRE(exchange.started.size() == 2);
  CHECK(floats_of(exchange.started[1].outs[0]) == std::vector<float>{4, 7, 5});  // max, this task's piece
  exchange.arrived[1] = {bytes_of({2, 9}), {}};  // task 0's folded piece 0
  collectives.pump();
  REQUIRE(answer.has_value());
  REQUIRE(answer->code == rt::StatusCode::kOk);
  CHECK(answer->results[0].values<float>() == std::vector<float>{2, 9, 4, 7, 5});
  CHECK(released == 0);  // nothing was claimed
}

TEST_CASE("a split all_reduce gives the whole row's fold bit for bit, wherever this task stands", "[pod]") {
  // Random float32 rows (magnitudes far apart, so that the order of the sums shows) over 2, 3 and 5
  // tasks, this board at every position, even and uneven pieces: phase 1 hands this task every other
  // task's piece of its position, phase 2 the others' folded pieces (the whole fold's, as the other
  // tasks would compute them); the result must be the whole rows' left fold.
  std::mt19937 random(7);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (const unsigned k : {2u, 3u, 5u})
    for (const size_t count : {size_t{k}, size_t{7}, size_t{1003}})
      for (unsigned me = 0; me < k; ++me) {
        CAPTURE(k, count, me);
        std::vector<std::vector<float>> rows(k, std::vector<float>(count));
        for (unsigned t = 0; t < k; ++t)
          for (float& value : rows[t]) value = unit(random) * (t % 2 == 0 ? 1e7f : 1.0f);
        std::string members;
        for (unsigned t = 0; t < k; ++t) members += (t ? "," : "") + std::to_string(t);
        const std::string text = "all_reduce op=sum type=float32 count=" + std::to_string(count) + " members=" + members +
                                 " source=0 seq=9 first=0";
        std::vector<std::vector<uint8_t>> whole_rows;
        for (const std::vector<float>& row : rows) whole_rows.push_back(bytes_of(row));
        const std::vector<uint8_t> expected = tpu::combine_rows(request_of(text), whole_rows);
        const auto piece = [&](const std::vector<uint8_t>& row, unsigned p) {
          const size_t first = p * count / k, end = (p + 1) * count / k;
          return std::vector<uint8_t>(row.begin() + long(first * 4), row.begin() + long(end * 4));
        };
        FakeExchange exchange(me);
        tpu::PodCollectives collectives(exchange);
        std::vector<float> output(count, -1.0f);
        collectives.write_results_in_place([&](unsigned, uint32_t, size_t) { return reinterpret_cast<uint8_t*>(output.data()); },
                                           [](unsigned, uint32_t) {}, 4);
        PodCaller pod(collectives);
        pod.call(text, rows[me]);
        std::optional<tpu::HostCallOutcome>& answer = pod.answer;
        REQUIRE(exchange.started.size() == 1);
        for (unsigned t = 0; t < k; ++t) exchange.arrived[0].push_back(t == me ? std::vector<uint8_t>() : piece(whole_rows[t], me));
        collectives.pump();
        REQUIRE(exchange.started.size() == 2);
        CHECK(exchange.started[1].outs[(me + 1) % k] == piece(expected, me));  // this task's folded piece
        for (unsigned t = 0; t < k; ++t) exchange.arrived[1].push_back(t == me ? std::vector<uint8_t>() : piece(expected, t));
        collectives.pump();
        REQUIRE(answer.has_value());
        REQUIRE(answer->code == rt::StatusCode::kOk);
        CHECK(answer->results[0].bytes == expected);
        CHECK(bytes_of(output) == expected);
      }
}

TEST_CASE("a claimed output is held only so long: the late all-gather is cancelled, then the output handed back",
          "[pod]") {
  FakeExchange exchange;  // task 1 of 0, 1
  tpu::PodCollectives collectives(exchange);
  std::vector<float> output(4, 0.0f);
  std::vector<std::string> events;
  collectives.write_results_in_place(
      [&](unsigned, uint32_t, size_t) {
        events.push_back("claim");
        return reinterpret_cast<uint8_t*>(output.data());
      },
      [&](unsigned core, uint32_t id) {
        events.push_back("release " + std::to_string(core) + "/" + std::to_string(id) + " after " +
                         std::to_string(exchange.cancelled.size()) + " cancelled");
      },
      16, std::chrono::milliseconds(0));
  PodCaller pod(collectives);
  pod.call("all_reduce op=sum type=float32 count=4 members=0,1 source=0 seq=3 first=0", {1, 2, 3, 4}, 2, 9);
  std::optional<tpu::HostCallOutcome>& answer = pod.answer;
  exchange.arrived[0] = {bytes_of({10, 20}), {}};
  collectives.pump();  // the pieces are in: claimed, folded, the all-gather started
  REQUIRE(exchange.started.size() == 2);
  CHECK(events == std::vector<std::string>{"claim"});
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  collectives.pump();  // task 0's folded piece never comes
  REQUIRE(answer.has_value());
  CHECK(answer->code == rt::StatusCode::kDeadlineExceeded);
  CHECK(answer->message ==
        "the boards of tasks 0, 1 did not all send their folded pieces within 0 ms (its output claimed) (nothing from task 0)");
  CHECK(exchange.cancelled == std::vector<int>{1});
  CHECK(events == std::vector<std::string>{"claim", "release 2/9 after 1 cancelled"});
  CHECK(!collectives.busy());
}

TEST_CASE("a call whose MPI exchange fails is answered UNAVAILABLE, and the rows it sends stay alive", "[pod]") {
  FakeExchange exchange;  // task 1 of 0, 1
  tpu::PodCollectives collectives(exchange);
  PodCaller pod(collectives);
  pod.call("all_reduce op=sum type=float32 count=2 members=0,1 source=0 seq=5 first=0", {1, 2});
  REQUIRE(exchange.started.size() == 1);
  exchange.failed.insert(0);
  collectives.pump();
  REQUIRE(pod.answer.has_value());
  CHECK(pod.answer->code == rt::StatusCode::kUnavailable);
  CHECK(pod.answer->message == "the pod's MPI exchange failed: MPI_ERR_OTHER");
  CHECK(exchange.ended.empty());  // never ended: MPI may still read its send buffers
  const FakeExchange::Started& failed = exchange.started[0];
  for (size_t i = 0; i < failed.sends.size(); ++i)  // (under ASan, a freed row is a report here)
    CHECK(std::vector<uint8_t>(failed.sends[i].begin(), failed.sends[i].end()) == failed.outs[i]);
}

TEST_CASE("boards that send different calls for one collective are told so, as one board tells its replicas", "[pod]") {
  FakeExchange exchange;  // task 1 of 0, 1
  tpu::PodCollectives collectives(exchange);
  PodCaller pod(collectives);
  const std::string square = "all_reduce op=sum type=float32 count=4 members=0,1 source=0 seq=5 first=0 shape=[2,2]";
  pod.call(square, {1, 2, 3, 4});
  REQUIRE(exchange.started.size() == 1);
  CHECK(exchange.signatures[0] == square);  // the call's text goes ahead of the row
  // Task 0 called it with the same elements in another shape; its row arrived as well.
  exchange.disagreeing[0] = {0, "all_reduce op=sum type=float32 count=4 members=0,1 source=0 seq=5 first=0 shape=[4]"};
  exchange.arrived[0] = {bytes_of({5, 6, 7, 8}), {}};
  collectives.pump();
  REQUIRE(pod.answer.has_value());
  CHECK(pod.answer->code == rt::StatusCode::kInvalidArgument);
  CHECK(pod.answer->message == "collective mismatch with task 0: all_reduce sum of 4 float32 shaped [2, 2] here, "
                               "all_reduce sum of 4 float32 shaped [4] there");
  CHECK(exchange.ended == std::vector<int>{0});  // its exchange had finished: nothing of it goes on
  CHECK(exchange.cancelled.empty());
  CHECK(!collectives.busy());
  // Another count and type: said the same way while the row is still to come, which is then left to
  // arrive (a row cancelled before it came would stay in MPI under the call's tag) and taken.
  pod.answer.reset();
  pod.call("all_reduce op=sum type=float32 count=2 members=0,1 source=0 seq=6 first=0", {1, 2});
  exchange.disagreeing[1] = {0, "all_reduce op=sum type=int32 count=4 members=0,1 source=0 seq=6 first=0"};
  collectives.pump();
  REQUIRE(pod.answer.has_value());
  CHECK(pod.answer->message == "collective mismatch with task 0: all_reduce sum of 2 float32 here, all_reduce sum of 4 "
                               "int32 there");
  CHECK(!collectives.busy());
  collectives.pump();
  CHECK(exchange.ended == std::vector<int>{0});  // still draining
  const FakeExchange::Started& refused = exchange.started[1];
  for (size_t i = 0; i < refused.sends.size(); ++i)  // kept alive meanwhile (under ASan, a freed row is a report)
    CHECK(std::vector<uint8_t>(refused.sends[i].begin(), refused.sends[i].end()) == refused.outs[i]);
  exchange.arrived[1] = {bytes_of({5, 6}), {}};
  collectives.pump();
  CHECK(exchange.ended == std::vector<int>{0, 1});
  CHECK(exchange.cancelled.empty());
  // Calls alike but for their groups: the texts themselves.
  pod.answer.reset();
  const std::string mine = "all_reduce op=sum type=float32 count=2 members=0,1 source=0 seq=7 first=0";
  const std::string theirs = "all_reduce op=sum type=float32 count=2 members=0,1,1 source=0 seq=7 first=0";
  pod.call(mine, {1, 2});
  exchange.disagreeing[2] = {0, theirs};
  collectives.pump();
  REQUIRE(pod.answer.has_value());
  CHECK(pod.answer->message == "collective mismatch with task 0: '" + mine + "' here, '" + theirs + "' there");
  exchange.failed.insert(2);  // a receive of the draining exchange fails (a row of another size): the rest is cancelled
  collectives.pump();
  CHECK(exchange.cancelled == std::vector<int>{2});
  // Signatures that agree change nothing.
  pod.answer.reset();
  pod.call("all_reduce op=sum type=float32 count=2 members=0,1 source=0 seq=8 first=0 shape=[2]", {1, 2});
  exchange.arrived[3] = {bytes_of({10, 20}), {}};
  collectives.pump();
  REQUIRE(pod.answer.has_value());
  REQUIRE(pod.answer->code == rt::StatusCode::kOk);
  CHECK(pod.answer->results[0].values<float>() == std::vector<float>{11, 22});
}

TEST_CASE("a split all_reduce signs the exchange of its pieces, not the all-gather after it", "[pod]") {
  FakeExchange exchange;  // task 1 of 0, 1
  tpu::PodCollectives collectives(exchange);
  std::vector<float> board_output(4, -1.0f);
  collectives.write_results_in_place([&](unsigned, uint32_t, size_t) { return reinterpret_cast<uint8_t*>(board_output.data()); },
                                     [](unsigned, uint32_t) {}, 16);
  PodCaller pod(collectives);
  const std::string text = "all_reduce op=sum type=float32 count=4 members=0,1 source=0 seq=2 first=0 shape=[4]";
  pod.call(text, {1, 2, 3, 4});
  exchange.arrived[0] = {bytes_of({10, 20}), {}};
  collectives.pump();
  exchange.arrived[1] = {bytes_of({11, 22}), {}};
  collectives.pump();
  REQUIRE(pod.answer.has_value());
  REQUIRE(pod.answer->code == rt::StatusCode::kOk);
  CHECK(board_output == std::vector<float>{11, 22, 13, 24});
  CHECK(exchange.signatures == std::vector<std::string>{text, ""});
}

TEST_CASE("TF_CONFIG names the cluster's workers and this rank's task", "[pod]") {
  std::string error;
  const std::optional<tpu::TfConfig> config = tpu::parse_tf_config(
      R"({"cluster": {"worker": ["host-a:8470", "host-b:8470"], "chief": []}, "task": {"type": "worker", "index": 1},
         "environment": "cloud", "rpc_layer": null})",
      error);
  REQUIRE(config.has_value());
  CHECK(config->workers == std::vector<std::string>{"host-a:8470", "host-b:8470"});
  CHECK(config->task_type == "worker");
  CHECK(config->task_index == 1);
  CHECK(tpu::check_tf_config(*config, 1, 2).empty());
  CHECK(tpu::check_tf_config(*config, 0, 2) ==
        "TF_CONFIG says task 1, but this is rank 0 of the pod (each rank's TF_CONFIG names its own rank; under tpu "
        "run --boards, whose ranks share one TF_CONFIG, write \"index\": {rank})");
  CHECK(tpu::check_tf_config(*config, 1, 3) == "TF_CONFIG lists 2 workers, but the pod has 3 ranks");
  tpu::TfConfig chief = *config;
  chief.task_type = "chief";
  CHECK(tpu::check_tf_config(chief, 1, 2) == "TF_CONFIG's task is a 'chief'; a pod's boards are TPU workers (type \"worker\")");
  CHECK(!tpu::parse_tf_config(R"({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 0})", error));
  CHECK(error.starts_with("TF_CONFIG is not JSON: expected '}'"));
  CHECK(!tpu::parse_tf_config(R"({"task": {"type": "worker", "index": 0}})", error));
  CHECK(error == "TF_CONFIG has no cluster.worker list");
  CHECK(!tpu::parse_tf_config(R"({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 0.5}})", error));
  CHECK(error == "TF_CONFIG has no task with a type and a whole index");
  CHECK(!tpu::parse_tf_config(R"({"cluster": {"worker": [1]}, "task": {"type": "worker", "index": 0}})", error));
  const std::optional<tpu::TfConfig> escaped = tpu::parse_tf_config(  // JSON's escapes in a worker's address
      R"({"cluster": {"worker": ["host\u002da:8470", "b\/c:1"]}, "task": {"type": "worker", "index": 0}})", error);
  REQUIRE(escaped.has_value());
  CHECK(escaped->workers == std::vector<std::string>{"host-a:8470", "b/c:1"});
  CHECK(!tpu::parse_tf_config(R"({"cluster": {"worker": ["a\q"]}, "task": {"type": "worker", "index": 0}})", error));
  CHECK(error.find("malformed escape") != std::string::npos);
  CHECK(!tpu::parse_tf_config("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", error));
  CHECK(error.find("nested too deeply") != std::string::npos);
}
