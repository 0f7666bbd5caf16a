// The board's trace recorder (core_trace.hpp) over hal::time_ns and hal::core_id.
#include "core_trace.hpp"

#include "core_status.hpp"
#include "hal/core.hpp"
#include "hal/time.hpp"

namespace rt::trace {
namespace {

struct alignas(kCacheLineSize) CoreRing {
  TraceRing ring;
};

CoreRing rings[hal::kMaxCores];
Atomic<bool> enabled{false};

class BoardRecorder final : public Recorder {
 public:
  uint64_t now_ns() override { return hal::time_ns(); }
  void record(const char* name, Category category, uint64_t begin_ns, uint64_t end_ns) override {
    if (!enabled.load(MemoryOrder::kRelaxed)) return;
    const unsigned core = hal::core_id();
    if (core < hal::kMaxCores) rings[core].ring.add(TraceRecord{begin_ns, end_ns, name, category});
  }
};

BoardRecorder board_recorder;

static_assert(hal::kMaxCores <= kCoreStatusMaxCores, "every core has a status record");

// The record layout core_status.hpp promises a reader outside the board.
static_assert(sizeof(TraceRecord) == 32 && __builtin_offsetof(TraceRecord, end_ns) == 8 &&
                  __builtin_offsetof(TraceRecord, name) == 16 && __builtin_offsetof(TraceRecord, category) == 24 &&
                  sizeof(const char*) == 8 && sizeof(Category) == 1 && sizeof(Atomic<uint64_t>) == 8,
              "trace records are laid out as TraceRingPlace describes them");

TraceRingPlace place_of(const TraceRing& ring) {
  return TraceRingPlace{reinterpret_cast<uintptr_t>(ring.records()), reinterpret_cast<uintptr_t>(&ring.written_count()),
                        TraceRing::kCapacity, sizeof(TraceRecord)};
}

}  // namespace

void start_core_trace() {
  for (unsigned core = 0; core < hal::kMaxCores; ++core) set_trace_ring_place(core, place_of(rings[core].ring));
  enabled.store(true, MemoryOrder::kRelease);
  install(&board_recorder);
}

void set_recording(bool on) { enabled.store(on, MemoryOrder::kRelease); }
bool recording() { return enabled.load(MemoryOrder::kAcquire); }
const TraceRing& core_ring(unsigned core) { return rings[core < hal::kMaxCores ? core : 0].ring; }

void clear_core_traces() {
  for (CoreRing& ring : rings) ring.ring.clear();
}

}  // namespace rt::trace
