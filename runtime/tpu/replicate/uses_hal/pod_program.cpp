// The program's exchanges between the boards of a pod (pod_program.hpp).
#include "pod_program.hpp"

#include <string.h>

#include "hal/core.hpp"
#include "pod_bridge.hpp"
#include "runtime/link/protocol/host_call.hpp"
#include "runtime/pod/pod_devices.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/mesh/pod_membership.hpp"

namespace rt::tpu {
namespace {

// Tags the program's exchanges: the pod's last replica id, which no group across boards starts at
// (such a group has a member after its first).
constexpr uint32_t kFirstMemberOfProgram = kMaxPodDevices - 1;
uint32_t program_exchanges = 0;  // core 0's count, equal on every board (the program is the same)

}  // namespace

Result<Tensor> pod_byte_vector(size_t bytes, StringView what) {
  const int64_t size = static_cast<int64_t>(bytes);
  return hbm().allocate_tensor(DType::kI8, RT_TRY(Shape::make(Span<const int64_t>(&size, 1))), what);
}

Result<Tensor> exchange_rows_between_boards(const Tensor& mine, Span<const size_t> sizes) {
  size_t total = 0;
  FixedString<192> text;
  format_to(text, "rows op=sum type=int8 count=0 sizes=");
  for (size_t t = 0; t < sizes.size(); ++t) {
    format_to(text, "{}{}", t == 0 ? "" : ",", sizes[t]);
    total += sizes[t];
  }
  format_to(text, " source=0 seq={} first={}", program_exchanges++, kFirstMemberOfProgram);
  const Tensor all = RT_TRY(pod_byte_vector(total, "an exchange between the boards"));
  const link::HostResult into[] = {link::HostResult::tensor(all)};
  RT_RETURN_IF_ERROR(link::host_call(kPodFunction, text.view(), Span<const Tensor>(&mine, 1), into));
  return all;
}

Result<int64_t> smallest_across_boards(int64_t value) {
  const PodMembership& pod = pod_membership();
  if (!pod.in_pod()) return value;
  const Tensor mine = RT_TRY(pod_byte_vector(sizeof value, "a value for the other boards"));
  memcpy(mine.data, &value, sizeof value);
  size_t sizes[kMaxPodTasks];
  for (unsigned t = 0; t < pod.num_tasks; ++t) sizes[t] = sizeof value;
  const Tensor all = RT_TRY(exchange_rows_between_boards(mine, Span<const size_t>(sizes, pod.num_tasks)));
  int64_t smallest = value;
  for (unsigned t = 0; t < pod.num_tasks; ++t) {
    int64_t theirs = 0;
    memcpy(&theirs, static_cast<const uint8_t*>(all.data) + t * sizeof value, sizeof value);
    if (theirs < smallest) smallest = theirs;
  }
  return smallest;
}

}  // namespace rt::tpu
