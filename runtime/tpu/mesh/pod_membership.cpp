// The board's place in its pod (pod_membership.hpp): written once at boot, read-only after.
#include "pod_membership.hpp"

namespace rt::tpu {
namespace {

PodMembership membership;

}  // namespace

void set_pod_membership(const PodMembership& value) {
  if (value.num_tasks == 0 || value.num_tasks > kMaxPodTasks || value.task >= value.num_tasks) return;
  membership = value;
}

const PodMembership& pod_membership() { return membership; }

}  // namespace rt::tpu
