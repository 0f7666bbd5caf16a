// The board's link ports over the HAL (hal_link_port.hpp).
#include "hal_link_port.hpp"

#include "hal/doorbell.hpp"
#include "hal/event.hpp"
#include "hal/link.hpp"
#include "hal/time.hpp"
#include "hal/support/new.hpp"

namespace firmware {

void HalLinkPort::lock_output() { new (&locks_[hal::core_id()]) hal::ConsoleLock(); }
void HalLinkPort::unlock_output() { reinterpret_cast<hal::ConsoleLock*>(&locks_[hal::core_id()])->~ConsoleLock(); }
void HalLinkPort::write(rt::Span<const uint8_t> bytes) { hal::link_write(bytes.data(), bytes.size()); }
int HalLinkPort::read_byte() {
  const int byte = hal::link_read_byte();
  if (byte >= 0) bytes_read_.store(bytes_read_.load(rt::MemoryOrder::kRelaxed) + 1, rt::MemoryOrder::kRelaxed);
  return byte;
}
unsigned HalLinkPort::core() { return hal::core_id(); }
uint64_t HalLinkPort::now_ns() { return hal::time_ns(); }
void HalLinkPort::wake_all() { hal::send_event(); }

void HalLinkPort::idle() {
  WaitState& wait = waits_[hal::core_id()];
  const uint64_t now = hal::time_ns();
  const uint64_t activity_now = activity();
  // A new wait: the link moved something since the last pause, or the pauses are far apart.
  if (activity_now != wait.activity || now - wait.last_idle_ns > 2 * kLongestSleepNs) {
    wait.activity = activity_now;
    wait.wait_start_ns = now;
    wait.sleep_ns = 0;
  }
  if (now - wait.wait_start_ns < kSpinNs && !hal::link_host_shares_cpus()) {
    hal::cpu_relax();
  } else {
    // Sleep a quarter of the time waited so far: an answer is seen at most ~25% after it came
    // (doubling sleeps could miss it by 100%), and a long wait still costs few wake-ups.
    const bool first_sleep = wait.sleep_ns == 0;
    const uint64_t quarter = (now - wait.wait_start_ns) / 4;
    wait.sleep_ns = quarter < kFirstSleepNs ? kFirstSleepNs : (quarter > kLongestSleepNs ? kLongestSleepNs : quarter);
    sleep_until(now + wait.sleep_ns, first_sleep);
  }
  wait.last_idle_ns = hal::time_ns();
}

void HalLinkPort::sleep_until(uint64_t deadline_ns, bool) { (void)hal::doorbell_wait(deadline_ns); }

void ShmLinkPort::wake_all() {
  HalLinkPort::wake_all();
  if (hal::link_wakeable()) transport_.ring_board();  // the peers asleep on the window's doorbell
}

void ShmLinkPort::host_has_work() {
  if (hal::link_host_shares_cpus()) transport_.ring_host();
}

void ShmLinkPort::sleep_until(uint64_t deadline_ns, bool first_sleep) {
  if (first_sleep) transport_.ring_host();  // the host has the work now: wake it if it sleeps between polls
  if (!hal::link_wakeable()) return HalLinkPort::sleep_until(deadline_ns, first_sleep);
  // Everything a core waits for here rings the doorbell, so the sleep lasts until it rings (not to
  // idle()'s growing deadline): the longest sleep only bounds a ring that never comes. Something
  // published since this core last looked: its caller polls again before any sleep.
  uint32_t& seen = seen_rings_[hal::core_id()];
  const uint32_t rings = transport_.host_rings();
  if (rings == seen) transport_.sleep_until_host_rings(rings, hal::time_ns() + kLongestSleepNs);
  seen = transport_.host_rings();
}

void ShmLinkPort::sleep(const uint32_t* word, uint32_t seen, uint64_t deadline_ns) { hal::link_sleep(word, seen, deadline_ns); }
void ShmLinkPort::wake(const uint32_t* word) { hal::link_wake(word); }

}  // namespace firmware
