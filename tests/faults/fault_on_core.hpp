// The skeleton of a fault image (tests/faults/*): one core runs something that must fault, and the
// fault report must end the run; every other core waits meanwhile and fails if it never ends.
#pragma once
#include "firmware/app.hpp"
#include "hal/time.hpp"

namespace fault_images {

// On `faulting_core`, `fault()` (an rt::Status only if it did not fault, which is a failure);
// elsewhere a 30 s wait the fault must cut short. `app` names the image in the too-few-cores error.
template <class Fault>
rt::Status fault_on_core(const firmware::CoreContext& context, unsigned faulting_core, const char* app, Fault fault) {
  if (context.cores <= faulting_core)
    return rt::Status::error(rt::StatusCode::kFailedPrecondition, "{} needs at least {} cores, has {}", app,
                             faulting_core + 1, context.cores);
  if (context.core == faulting_core) return fault();
  hal::delay_ns(30000 * hal::kNanosPerMilli);  // the fault must end the run long before this
  return rt::internal_error("core {}: the run was not ended by core {}'s fault", context.core, faulting_core);
}

}  // namespace fault_images
