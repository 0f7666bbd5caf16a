// Collectives across boards by the members' own buffers (host-tools/lib/pod/pod_members.hpp), without
// MPI: what each board's row holds, and that every member's output is what one board computes (the
// same group order and rounding), checked against values worked out by hand where the order shows
// (a float32 mean and a bfloat16 sum that come out otherwise if each board rounded its own part),
// and the deferred .pod call over a fake exchange.
#include <catch2/catch.hpp>

#include "pod_request_of.hpp"

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "host-tools/lib/pod/pod_collectives.hpp"
#include "host-tools/lib/pod/pod_members.hpp"
#include "runtime/dtype/half.hpp"

namespace {

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> values_of(const std::vector<uint8_t>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

std::vector<uint8_t> bf16_bytes(const std::vector<float>& values) {
  std::vector<uint16_t> bits;
  for (float value : values) bits.push_back(rt::to_bfloat16(value).bits);
  return bytes_of(bits);
}

// Every member's input, group position j's at [j]; what task `task` hands its tpu (its members' inputs).
std::vector<std::vector<uint8_t>> inputs_on(const tpu::PodRequest& request, unsigned task,
                                            const std::vector<std::vector<uint8_t>>& inputs) {
  std::vector<std::vector<uint8_t>> here;
  for (unsigned j : request.members_on(task)) here.push_back(inputs[j]);
  return here;
}

// The pod run by hand: every task packs its row for each other task, then each computes its
// members' outputs from the rows sent to it. Returns the outputs of every group position (all_reduce:
// the one result, per task).
std::map<unsigned, std::vector<uint8_t>> run_pod(const tpu::PodRequest& request,
                                                 const std::vector<std::vector<uint8_t>>& inputs) {
  std::map<unsigned, std::vector<uint8_t>> outputs;
  for (unsigned task : request.tasks()) {
    std::vector<std::vector<uint8_t>> rows;  // what every task sent this one
    for (unsigned from : request.tasks()) {
      rows.push_back(from == task ? std::vector<uint8_t>()
                                  : tpu::pack_member_row(request, from, task, inputs_on(request, from, inputs)));
      CHECK(rows.back().size() == (from == task ? 0 : request.row_bytes(from, task)));
    }
    std::string error;
    const std::vector<std::vector<uint8_t>> mine = tpu::member_outputs(request, task, inputs_on(request, task, inputs), rows, error);
    INFO(error);
    REQUIRE(error.empty());
    const std::vector<unsigned> here = request.members_on(task);
    if (request.kind == "all_reduce") {
      REQUIRE(mine.size() == 1);
      for (unsigned j : here) outputs[j] = mine[0];
    } else {
      REQUIRE(mine.size() == here.size());
      for (size_t i = 0; i < here.size(); ++i) outputs[here[i]] = mine[i];
    }
  }
  return outputs;
}

}  // namespace

TEST_CASE("requests by members: the forms each kind takes", "[pod]") {
  const tpu::PodRequest mean =
      request_of("all_reduce op=mean type=bfloat16 count=3 members=0,0,1 source=0 seq=2 first=0 by=members");
  CHECK(mean.by_members);
  CHECK(mean.row_bytes(0, 1) == 12);  // both members' inputs
  CHECK(mean.row_bytes(1, 0) == 6);
  CHECK(mean.result_bytes() == 6);
  const tpu::PodRequest scatter =
      request_of("reduce_scatter op=sum type=int32 count=8 members=0,0,1,1 source=0 seq=1 first=0 by=members");
  CHECK(scatter.row_bytes(0, 1) == 32);  // 2 members x the chunks of task 1's 2 positions, 2 int32 each
  CHECK(scatter.result_bytes() == 8);
  const tpu::PodRequest permute =
      request_of("collective_permute op=sum type=float32 count=2 members=0,0,1,1 source=0 seq=1 first=0 by=members "
                 "pairs=0:2,2:3,3:0");
  CHECK(permute.pairs == std::vector<std::pair<unsigned, unsigned>>{{0, 2}, {2, 3}, {3, 0}});
  CHECK(permute.row_bytes(0, 1) == 8);  // 0 -> 2 crosses
  CHECK(permute.row_bytes(1, 0) == 8);  // 3 -> 0 crosses, 2 -> 3 stays
  // Three boards: each row holds only what its destination needs.
  const tpu::PodRequest scatter3 =
      request_of("reduce_scatter op=sum type=int32 count=6 members=0,0,1,1,2,2 source=0 seq=1 first=0 by=members");
  CHECK(scatter3.row_bytes(0, 1) == 16);  // task 0's 2 members x task 1's 2 positions' chunks, 1 int32 each
  CHECK(scatter3.row_bytes(0, 2) == 16);
  const tpu::PodRequest permute3 =
      request_of("collective_permute op=sum type=float32 count=2 members=0,1,2 source=0 seq=1 first=0 by=members "
                 "pairs=0:1,1:2,2:0");
  CHECK(permute3.row_bytes(0, 1) == 8);  // 0 -> 1
  CHECK(permute3.row_bytes(0, 2) == 0);  // nothing of task 0's goes to task 2
  CHECK(permute3.row_bytes(2, 0) == 8);
  std::string error;
  CHECK(!tpu::parse_pod_request("all_reduce op=mean type=float32 count=1 members=0,1 source=0 seq=1 first=0", error));
  CHECK(!tpu::parse_pod_request("reduce_scatter op=sum type=float32 count=2 members=0,1 source=0 seq=1 first=0", error));
  CHECK(!tpu::parse_pod_request("all_to_all op=sum type=float32 count=2 members=0,1 source=0 seq=1 first=0 by=members "
                                "blocks=1,4", error));
  CHECK(!tpu::parse_pod_request("reduce_scatter op=sum type=float32 count=3 members=0,1 source=0 seq=1 first=0 by=members",
                                error));
  CHECK(error == "reduce_scatter of 3 elements does not split over a group of 2");
  CHECK(!tpu::parse_pod_request("collective_permute op=sum type=float32 count=1 members=0,1 source=0 seq=1 first=0 "
                                "by=members pairs=0:1,1:1", error));
  CHECK(error == "collective_permute's pair 1:1 is outside the 2 replicas or repeats a source or target");
}

TEST_CASE("all_reduce by members: one board's group order and one rounding, whatever the boards", "[pod]") {
  // float32 mean of 1e8, 1, -1e8, 1 on tasks 0, 0, 1, 1: one board sums ((1e8 + 1) - 1e8) + 1 = 1
  // (1e8 + 1 rounds to 1e8), / 4 = 0.25; the boards' partials would give 1e8 + (-1e8 + 1) = 0.
  const tpu::PodRequest mean =
      request_of("all_reduce op=mean type=float32 count=1 members=0,0,1,1 source=0 seq=1 first=0 by=members");
  for (const auto& [member, out] : run_pod(mean, {bytes_of<float>({1e8f}), bytes_of<float>({1}),
                                                  bytes_of<float>({-1e8f}), bytes_of<float>({1})}))
    CHECK(values_of<float>(out) == std::vector<float>{0.25f});
  // bfloat16 sum of 256, 1, 1, 1: float32 259, rounded once to bfloat16 (spacing 2 there, a tie, to
  // even) 260; rounding each board's part (257 -> 256, then 256 + 2) would give 258.
  const tpu::PodRequest bf16 =
      request_of("all_reduce op=sum type=bfloat16 count=2 members=0,0,1,1 source=0 seq=1 first=0 by=members");
  for (const auto& [member, out] : run_pod(bf16, {bf16_bytes({256, 1}), bf16_bytes({1, 2}), bf16_bytes({1, 3}),
                                                  bf16_bytes({1, 4})}))
    CHECK(out == bf16_bytes({260, 10}));
  // float16 mean over members interleaved across three tasks: the same as the board's kernel over the
  // inputs in group order.
  const tpu::PodRequest f16 =
      request_of("all_reduce op=mean type=float16 count=1 members=2,0,1,0 source=0 seq=1 first=0 by=members");
  std::vector<std::vector<uint8_t>> inputs;
  for (float value : {0.1f, 1000.0f, 0.3f, -999.7f}) inputs.push_back(bytes_of<uint16_t>({rt::to_float16(value).bits}));
  const float one_board = (((rt::to_float(rt::to_float16(0.1f)) + rt::to_float(rt::to_float16(1000.0f))) +
                            rt::to_float(rt::to_float16(0.3f))) + rt::to_float(rt::to_float16(-999.7f))) / 4.0f;
  for (const auto& [member, out] : run_pod(f16, inputs))
    CHECK(out == bytes_of<uint16_t>({rt::to_float16(one_board).bits}));
}

TEST_CASE("reduce_scatter, all_to_all and collective_permute by members: every member's output", "[pod]") {
  // reduce_scatter of 4 int32 per member over members on tasks 1, 0, 1, 0: member p gets element p of
  // the sum, the sum of member j's values 10 j + p.
  const tpu::PodRequest scatter =
      request_of("reduce_scatter op=sum type=int32 count=4 members=1,0,1,0 source=0 seq=1 first=0 by=members");
  std::vector<std::vector<uint8_t>> inputs;
  for (int j = 0; j < 4; ++j) inputs.push_back(bytes_of<int32_t>({10 * j, 10 * j + 1, 10 * j + 2, 10 * j + 3}));
  for (const auto& [p, out] : run_pod(scatter, inputs)) CHECK(values_of<int32_t>(out) == std::vector<int32_t>{60 + 4 * int(p)});
  // all_to_all of [2, 4] float32 per member (member j holds 100 j + 10 r + c at [r, c]), split along 1,
  // concatenated along 0: member p gets [8, 1], rows 2 j and 2 j + 1 from member j's column p.
  const tpu::PodRequest to_all =
      request_of("all_to_all op=sum type=float32 count=8 members=0,1,0,1 source=0 seq=1 first=0 by=members blocks=2,4,1,8");
  inputs.clear();
  for (int j = 0; j < 4; ++j) {
    std::vector<float> values;
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 4; ++c) values.push_back(float(100 * j + 10 * r + c));
    inputs.push_back(bytes_of(values));
  }
  for (const auto& [p, out] : run_pod(to_all, inputs)) {
    std::vector<float> expected;
    for (int j = 0; j < 4; ++j)
      for (int r = 0; r < 2; ++r) expected.push_back(float(100 * j + 10 * r + int(p)));
    CHECK(values_of<float>(out) == expected);
  }
  // collective_permute 0 -> 2, 2 -> 3, 3 -> 0 on tasks 0, 0, 1, 1: member 1 is no target and gets zeros.
  const tpu::PodRequest permute =
      request_of("collective_permute op=sum type=float32 count=2 members=0,0,1,1 source=0 seq=1 first=0 by=members "
                 "pairs=0:2,2:3,3:0");
  inputs = {bytes_of<float>({1, 2}), bytes_of<float>({3, 4}), bytes_of<float>({5, 6}), bytes_of<float>({7, 8})};
  const std::map<unsigned, std::vector<uint8_t>> permuted = run_pod(permute, inputs);
  CHECK(values_of<float>(permuted.at(0)) == std::vector<float>{7, 8});
  CHECK(values_of<float>(permuted.at(1)) == std::vector<float>{0, 0});
  CHECK(values_of<float>(permuted.at(2)) == std::vector<float>{1, 2});
  CHECK(values_of<float>(permuted.at(3)) == std::vector<float>{5, 6});
  // Three boards, each sending every other only what it needs: reduce_scatter (member p of 6 gets
  // the sum of 10 j + p over the members j: 150 + 6 p) and a ring permute 0 -> 1 -> 2 -> 0.
  const tpu::PodRequest scatter3 =
      request_of("reduce_scatter op=sum type=int32 count=6 members=0,0,1,1,2,2 source=0 seq=1 first=0 by=members");
  inputs.clear();
  for (int j = 0; j < 6; ++j) {
    std::vector<int32_t> values;
    for (int e = 0; e < 6; ++e) values.push_back(10 * j + e);
    inputs.push_back(bytes_of(values));
  }
  for (const auto& [p, out] : run_pod(scatter3, inputs))
    CHECK(values_of<int32_t>(out) == std::vector<int32_t>{150 + 6 * int(p)});
  const tpu::PodRequest ring =
      request_of("collective_permute op=sum type=float32 count=2 members=0,1,2 source=0 seq=1 first=0 by=members "
                 "pairs=0:1,1:2,2:0");
  const std::map<unsigned, std::vector<uint8_t>> rotated =
      run_pod(ring, {bytes_of<float>({1, 2}), bytes_of<float>({3, 4}), bytes_of<float>({5, 6})});
  CHECK(values_of<float>(rotated.at(0)) == std::vector<float>{5, 6});
  CHECK(values_of<float>(rotated.at(1)) == std::vector<float>{1, 2});
  CHECK(values_of<float>(rotated.at(2)) == std::vector<float>{3, 4});
  // A row of the wrong size is an error naming the task, not a crash.
  std::string error;
  const std::vector<std::vector<uint8_t>> rows = {bytes_of<float>({1, 2}), bytes_of<float>({7})};
  CHECK(tpu::member_outputs(permute, 0, inputs_on(permute, 0, inputs), rows, error).empty());
  CHECK(error == "task 1's row has 4 bytes, expected 8");
}
