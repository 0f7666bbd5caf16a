// Starting secondary cores, shared by every board: the CoreMain table and the hand-over when a
// started core arrives in secondary_core_continue().
#include "boot.hpp"

#include "hal/board.hpp"
#include "hal/core.hpp"
#include "hal/fault.hpp"
#include "hal/support/atomic.hpp"

namespace hal {
namespace {

rt::Atomic<CoreMain> core_mains[kMaxCores];

}  // namespace

unsigned core_count() { return board::core_count(); }
uint64_t core_hardware_id(unsigned core) { return board::core_hardware_id(core); }

StartError start_core(unsigned core, CoreMain main) {
  if (core == 0 || core >= board::core_count()) return StartError::kNoSuchCore;
  CoreMain expected = nullptr;
  // Release ordering: the core reads its CoreMain after it has been published.
  if (!core_mains[core].compare_exchange(expected, main, rt::MemoryOrder::kAcqRel)) return StartError::kAlreadyStarted;
  StartError error = board::release_core(core);
  if (error != StartError::kNone) core_mains[core].store(nullptr, rt::MemoryOrder::kRelease);
  return error;
}

const char* start_error_name(StartError error) {
  switch (error) {
    case StartError::kNone: return "started";
    case StartError::kNoSuchCore: return "no such core";
    case StartError::kAlreadyStarted: return "already started";
    case StartError::kRefused: return "refused by firmware";
  }
  return "unknown";
}

void secondary_core_continue(unsigned core) {
  board::init_core(core);
  CoreMain main = core_mains[core].load(rt::MemoryOrder::kAcquire);
  if (main == nullptr) panic("secondary core started without a CoreMain");
  main(core);
  panic("CoreMain returned");
}

}  // namespace hal
