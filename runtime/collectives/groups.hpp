// Replica groups (TF's group_assignment): [num_groups][group_size] replica ids. Every replica must
// appear exactly once; the default (no groups) is one group of all replicas in id order.
#pragma once
#include "hal/core.hpp"
#include "hal/support/status.hpp"
#include "runtime/pod/pod_devices.hpp"

namespace rt {

struct GroupAssignment {
  const uint32_t* ids = nullptr;  // row-major [num_groups][group_size]
  unsigned num_groups = 0;        // 0: the default single group of all replicas
  unsigned group_size = 0;

  bool is_default() const { return num_groups == 0; }
};

// A group assignment written as TF writes one (group_assignment=[[0, 2], [1, 3]]):
//   replica.cross_replica_sum(x, rt::group_assignment({{0, 2}, {1, 3}}))
//   const auto pairs = rt::group_assignment({{0, 1}, {2, 3}});   // kept to use again
// It holds its ids, where a GroupAssignment only views them: keep it for as long as a
// GroupAssignment taken from it is used (a temporary lasts to the end of the call it is passed to).
// Rows of different lengths do not compile; the ids are validated where the groups are used.
template <unsigned NumGroups, unsigned GroupSize>
struct GroupLiteral {
  uint32_t ids[NumGroups * GroupSize] = {};

  operator GroupAssignment() const { return GroupAssignment{ids, NumGroups, GroupSize}; }
};
template <size_t NumGroups, size_t GroupSize>
constexpr GroupLiteral<NumGroups, GroupSize> group_assignment(const uint32_t (&rows)[NumGroups][GroupSize]) {
  GroupLiteral<NumGroups, GroupSize> literal;
  for (size_t g = 0; g < NumGroups; ++g)
    for (size_t i = 0; i < GroupSize; ++i) literal.ids[g * GroupSize + i] = rows[g][i];
  return literal;
}

// Checks the assignment against `num_replicas` with XLA/TF's error texts.
Status validate_groups(const GroupAssignment& groups, unsigned num_replicas);

// The members (replica ids, group order) of the group holding `replica`, and its position there.
// In a pod a group may span boards: up to kMaxPodDevices members (one board's part of it, at most
// hal::kMaxCores, is the Group of its local members).
struct Group {
  uint32_t members[kMaxPodDevices];
  unsigned size;
  unsigned position;  // of the calling replica
};
// Requires a validated assignment.
Group group_of(const GroupAssignment& groups, unsigned num_replicas, unsigned replica);

// "[[0, 2], [1, 3]]", as TF prints a group assignment in its errors.
void format_groups(FormatBuffer& out, const GroupAssignment& groups);

}  // namespace rt
