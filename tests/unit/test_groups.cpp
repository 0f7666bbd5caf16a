// Replica group validation (runtime/collectives/groups.cpp): TF's error texts, hand-written here,
// and group membership lookup.
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <string>

#include "runtime/collectives/groups.hpp"

namespace {

using test_helpers::message;


}  // namespace

TEST_CASE("valid group assignments", "[groups]") {
  const uint32_t parity[] = {0, 2, 4, 6, 1, 3, 5, 7};
  const rt::GroupAssignment groups{parity, 2, 4};
  REQUIRE(rt::validate_groups(groups, 8).is_ok());
  REQUIRE(rt::validate_groups(rt::GroupAssignment{}, 8).is_ok());
  const rt::Group odd = rt::group_of(groups, 8, 5);
  CHECK(odd.size == 4);
  CHECK(odd.position == 2);
  CHECK(odd.members[0] == 1);
  CHECK(odd.members[3] == 7);
  const rt::Group all = rt::group_of(rt::GroupAssignment{}, 3, 2);
  CHECK(all.size == 3);
  CHECK(all.position == 2);
}

TEST_CASE("a group assignment written as TF writes one", "[groups]") {
  const auto parity = rt::group_assignment({{0, 2, 4, 6}, {1, 3, 5, 7}});
  const rt::GroupAssignment groups = parity;
  CHECK(groups.num_groups == 2);
  CHECK(groups.group_size == 4);
  const uint32_t expected[] = {0, 2, 4, 6, 1, 3, 5, 7};
  for (unsigned i = 0; i < 8; ++i) CHECK(groups.ids[i] == expected[i]);
  REQUIRE(rt::validate_groups(groups, 8).is_ok());
  const rt::Group odd = rt::group_of(groups, 8, 5);
  CHECK(odd.position == 2);
  CHECK(odd.members[3] == 7);
  CHECK(message(rt::validate_groups(rt::group_assignment({{0, 1}, {1, 2}}), 4)) ==
        "Replica 1 is repeated in instruction's replica-groups: [[0, 1], [1, 2]]");
  CHECK(message(rt::validate_groups(rt::group_assignment({{0, 2}}), 3)) ==
        "Replica 1 is not named in instruction's replica-groups: [[0, 2]]");
}

TEST_CASE("invalid group assignments give TF's errors", "[groups]") {
  CHECK(message(rt::validate_groups(rt::GroupAssignment{nullptr, 1, 0}, 2)) ==
        "Instruction cannot have an empty replica group: [[]]");
  const uint32_t repeated[] = {0, 1, 1, 2};
  CHECK(message(rt::validate_groups(rt::GroupAssignment{repeated, 2, 2}, 4)) ==
        "Replica 1 is repeated in instruction's replica-groups: [[0, 1], [1, 2]]");
  const uint32_t missing[] = {0, 2};
  CHECK(message(rt::validate_groups(rt::GroupAssignment{missing, 1, 2}, 3)) ==
        "Replica 1 is not named in instruction's replica-groups: [[0, 2]]");
  const uint32_t out_of_range[] = {0, 5};  // XLA: the ids below the 2 distinct ones must all be named
  CHECK(message(rt::validate_groups(rt::GroupAssignment{out_of_range, 1, 2}, 2)) ==
        "Replica 1 is not named in instruction's replica-groups: [[0, 5]]");
  const uint32_t partial[] = {0, 1};  // XLA's verifier: the groups must cover every replica
  CHECK(message(rt::validate_groups(rt::GroupAssignment{partial, 1, 2}, 4)) ==
        "In kCrossReplica mode, replica groups should contain 4 replicas, but found 2: [[0, 1]]");
  const uint32_t huge[] = {0, 4000000000u};
  CHECK(message(rt::validate_groups(rt::GroupAssignment{huge, 1, 2}, 2)) ==
        "Replica 1 is not named in instruction's replica-groups: [[0, 4000000000]]");
  CHECK(rt::validate_groups(rt::GroupAssignment{missing, 1, 2}, 3).code() == rt::StatusCode::kInvalidArgument);
}
