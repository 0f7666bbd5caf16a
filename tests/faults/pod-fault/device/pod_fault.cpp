// pod-fault: in a pod, core 1 of the last task dereferences a null pointer (a test image); every other
// core of every board passes. The pod must end with the fault's status on every rank, the faulting
// board's report naming its task and core. Alone (task 0 of 1), core 1 faults the same way.
#include "firmware/app.hpp"
#include "hal/time.hpp"
#include "runtime/tpu/mesh/pod_membership.hpp"

namespace {

constexpr unsigned kFaultingCore = 1;

rt::Status run(const firmware::CoreContext& context) {
  const rt::tpu::PodMembership& pod = rt::tpu::pod_membership();
  const bool faulting_task = pod.task + 1 == pod.num_tasks;
  if (context.cores <= kFaultingCore)
    return rt::Status::error(rt::StatusCode::kFailedPrecondition, "pod-fault needs at least {} cores, has {}",
                             kFaultingCore + 1, context.cores);
  if (!faulting_task) return rt::Status::ok();  // the other boards pass
  if (context.core == kFaultingCore) {
    volatile uint32_t* null_pointer = nullptr;
    *null_pointer = 0xdead;  // must fault
    return rt::internal_error("core {} wrote through a null pointer without faulting", context.core);
  }
  hal::delay_ns(30000 * hal::kNanosPerMilli);  // the fault must end the run long before this
  return rt::internal_error("task {} core {}: the run was not ended by core {}'s fault", pod.task, context.core,
                            kFaultingCore);
}

}  // namespace

const firmware::App firmware::kApp = {"pod-fault", "test image: in a pod, a null dereference on the last task's core 1",
                                      run};
