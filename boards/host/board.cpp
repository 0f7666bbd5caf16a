// host board: core count from the command line, cores started as threads.
#include "hal/board.hpp"

#include <thread>

#include "../../hal/arch/host/link_ram.hpp"
#include "../../hal/arch/host/thread_core.hpp"
#include "../../hal/common/boot.hpp"
#include "hal/affinity.hpp"
#include "hal/core.hpp"
#include "hal/link_window.hpp"
#include "hal/memory_map.hpp"

namespace hal::host {

static unsigned configured_cores = 1;
void set_core_count(unsigned cores) { configured_cores = cores; }

}  // namespace hal::host

namespace hal::board {

const char* name() { return "host"; }
void init() {}
void init_core(unsigned core) { bind_core_as_requested(core, host::configured_cores); }
unsigned core_count() { return host::configured_cores; }
uint64_t core_hardware_id(unsigned core) { return core; }
uint64_t timer_frequency_hz() { return 1000000000; }

const MemoryRegion* memory_regions() {
  static const MemoryRegion none[] = {{"", 0, 0, MemoryKind::kNormal}};
  return none;  // the host OS owns the memory map
}

StartError release_core(unsigned core) {
  std::thread([core] {
    host::become_core(core);
    secondary_core_continue(core);
  }).detach();
  return StartError::kNone;
}

// The top of the RAM file tpu shared (hal/arch/host/link_ram.hpp); none without one (the link is
// then on stdio).
LinkWindow link_window() {
  const host::LinkRam ram = host::link_ram();
  if (ram.base == nullptr) return {};
  return {ram.window(), ram.window_bytes};
}

}  // namespace hal::board
