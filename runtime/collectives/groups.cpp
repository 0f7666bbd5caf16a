// Group assignment validation (messages match XLA's HloReplicaGroup checks as TF reports them).
#include "groups.hpp"

namespace rt {

void format_groups(FormatBuffer& out, const GroupAssignment& groups) {
  out.append('[');
  for (unsigned g = 0; g < groups.num_groups; ++g) {
    if (g != 0) out.append(", ");
    format_to(out, "{}", Span<const uint32_t>(groups.ids + g * groups.group_size, groups.group_size));
  }
  out.append(']');
}

Status validate_groups(const GroupAssignment& groups, unsigned num_replicas) {
  if (groups.is_default()) return Status::ok();
  FixedString<320> text;  // a pod's 64 ids print in about 260 characters
  format_groups(text, groups);
  if (groups.group_size == 0) return invalid_argument("Instruction cannot have an empty replica group: {}", text);
  // XLA's HLO verifier (CheckReplicaGroups), in its order: repeats, then every id below the count
  // of distinct ids must be named, then that count must be the replica count. XLA skips the last
  // check when the module's replica count is 1; here there is no replica 1 to send to, so it holds.
  // After the colon XLA prints the HLO instruction; here the group assignment.
  constexpr unsigned kMaxIds = 2 * kMaxPodDevices;  // ids beyond that are out of range anyway
  bool seen[kMaxIds] = {};
  unsigned distinct = 0;
  for (unsigned i = 0; i < groups.num_groups * groups.group_size; ++i) {
    const uint32_t replica = groups.ids[i];
    if (replica < kMaxIds && seen[replica])
      return invalid_argument("Replica {} is repeated in instruction's replica-groups: {}", replica, text);
    if (replica < kMaxIds) seen[replica] = true;
    ++distinct;
  }
  for (unsigned replica = 0; replica < distinct; ++replica)
    if (replica >= kMaxIds || !seen[replica])
      return invalid_argument("Replica {} is not named in instruction's replica-groups: {}", replica, text);
  if (distinct != num_replicas)
    return invalid_argument("In kCrossReplica mode, replica groups should contain {} replicas, but found {}: {}",
                            num_replicas, distinct, text);
  return Status::ok();
}

Group group_of(const GroupAssignment& groups, unsigned num_replicas, unsigned replica) {
  Group group{};
  if (groups.is_default()) {
    group.size = num_replicas;
    for (unsigned r = 0; r < num_replicas; ++r) group.members[r] = r;
    group.position = replica;
    return group;
  }
  for (unsigned g = 0; g < groups.num_groups; ++g) {
    const uint32_t* row = groups.ids + g * groups.group_size;
    for (unsigned i = 0; i < groups.group_size; ++i) {
      if (row[i] != replica) continue;
      group.size = groups.group_size;
      for (unsigned j = 0; j < group.size; ++j) group.members[j] = row[j];
      group.position = i;
      return group;
    }
  }
  return group;  // unreachable for validated assignments
}

}  // namespace rt
