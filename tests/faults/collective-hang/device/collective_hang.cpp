// collective-hang: a test image for the fault matrix. The last core never joins the all-reduce the
// others call (it spins forever, as a core stuck in a bad loop would). The others must come back
// from the collective with DEADLINE_EXCEEDED naming the missing core, not hang with it; the run then
// ends at tpu's --timeout, naming the core that never reported.
#include "firmware/app.hpp"
#include "hal/core.hpp"
#include "runtime/collectives/collectives.hpp"

namespace {

constexpr uint64_t kCollectiveTimeoutMs = 1000;

rt::Status run(const firmware::CoreContext& context) {
  if (context.core == context.cores - 1) {
    for (volatile uint64_t spins = 0;; spins = spins + 1) {
    }
  }
  rt::Collectives collectives(rt::ReplicaSet::one_per_core(context.cores), context.core);
  rt::CollectiveOptions options;
  options.timeout_ns = kCollectiveTimeoutMs * hal::kNanosPerMilli;
  float values[4] = {1, 2, 3, 4};
  return collectives.all_reduce(rt::ReduceOp::kSum, rt::DType::kF32, values, values, 4, options);
}

}  // namespace

const firmware::App firmware::kApp = {"collective-hang", "test image: the last core never joins the all-reduce", run};
