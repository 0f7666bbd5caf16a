// soak: one run of `make soak` (tests/soak.py), for many runs on many cores under multi-threaded
// TCG and ThreadSanitizer. Each run draws a fresh range of case indices from the board's clock
// (printed, so a failing case is named by its index, which alone reproduces it: every parameter
// and input follows from the index), then runs on every core
//   kCollectiveCases random collectives (the collectives app's cases: kinds, dtypes, sizes, groups,
//     algorithms, misaligned buffers; each core checks its output bit for bit against the
//     sequential reference), and
//   kReplicateCases random replicate calls from core 0 (replicate_cases.cpp).
#include "tests/device/collective-cases/suite.hpp"
#include "firmware/splitmix.hpp"
#include "firmware/tpu_pod.hpp"
#include "hal/time.hpp"
#include "soak.hpp"

namespace {

constexpr unsigned kCollectiveCases = 100;
constexpr unsigned kReplicateCases = 20;

uint64_t first_case = 0;  // set by init on the boot core before any core runs

void init(unsigned cores) {
  first_case = (firmware::splitmix64(hal::time_ns() ^ hal::cycle_count()) % 1000000000ull) * 1000;
  rt::log_info("soak: {} cores, collective cases {}..{}, replicate cases {}..{}", cores, first_case,
               first_case + kCollectiveCases - 1, first_case, first_case + kReplicateCases - 1);
}

rt::Status run(const firmware::CoreContext& context) {
  rt::Collectives collectives(rt::ReplicaSet::one_per_core(context.cores), context.core);
  RT_RETURN_IF_ERROR(collectives_test::run_random_cases(collectives, kCollectiveCases, first_case));
  RT_RETURN_IF_ERROR(collectives.barrier());
  return rt::tpu::run_program(context, [&] { return soak::run_replicate_cases(context.cores, kReplicateCases, first_case); });
}

}  // namespace

const firmware::App firmware::kApp = {"soak", "random collectives and replicate calls from a fresh range of cases", run,
                                      init};
