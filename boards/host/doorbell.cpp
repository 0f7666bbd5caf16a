// host doorbells: one flag + condition variable per core; waits are bounded by the deadline.
#include "hal/doorbell.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "hal/core.hpp"
#include "hal/time.hpp"

namespace hal {
namespace {

struct Doorbell {
  std::mutex mutex;
  std::condition_variable rung;
  bool pending = false;
};
Doorbell doorbells[kMaxCores];

}  // namespace

void doorbell_ring(unsigned core) {
  Doorbell& bell = doorbells[core];
  {
    std::lock_guard<std::mutex> lock(bell.mutex);
    bell.pending = true;
  }
  bell.rung.notify_one();
}

bool doorbell_poll() {
  Doorbell& bell = doorbells[core_id()];
  std::lock_guard<std::mutex> lock(bell.mutex);
  const bool was_pending = bell.pending;
  bell.pending = false;
  return was_pending;
}

bool doorbell_wait(uint64_t deadline_ns) {
  Doorbell& bell = doorbells[core_id()];
  std::unique_lock<std::mutex> lock(bell.mutex);
  const uint64_t now = time_ns();
  const auto timeout = std::chrono::nanoseconds(deadline_ns > now ? deadline_ns - now : 0);
  bell.rung.wait_for(lock, timeout, [&] { return bell.pending; });
  const bool was_pending = bell.pending;
  bell.pending = false;
  return was_pending;
}

}  // namespace hal
