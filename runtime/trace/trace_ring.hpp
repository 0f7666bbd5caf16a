// One core's trace record: a ring of its most recent trace events (older ones are overwritten and
// counted as dropped) and running totals of time and events per category, which stay exact however
// many events the ring lost. Pure (no HAL): the owning core is the only writer; readers look at
// the ring once the core has stopped recording (end of the run), the totals at any time.
#pragma once
#include "trace_point.hpp"

namespace rt::trace {

// No member initialisers: a static ring is then zero-initialised and sits in .bss, not in the
// board's image (with them, the 16 cores' rings put 264 KiB of .data into every image and a
// chainboot over the UART took four times as long). Every record is written whole by add().
struct TraceRecord {
  uint64_t begin_ns;
  uint64_t end_ns;
  const char* name;
  Category category;
};

struct CategoryTotals {
  uint64_t ns[kCategoryCount] = {};
  uint64_t events[kCategoryCount] = {};
};

class TraceRing {
 public:
  static constexpr unsigned kCapacity = 512;

  void add(const TraceRecord& record);
  void clear();
  // Events held, oldest first: at(0) .. at(size() - 1).
  unsigned size() const;
  const TraceRecord& at(unsigned index) const;
  uint64_t dropped() const { return dropped_.load(MemoryOrder::kRelaxed); }
  CategoryTotals totals() const;
  // Where the records and the count of records ever written lie, for a reader outside the board
  // (core_status.hpp's TraceRingPlace).
  const TraceRecord* records() const { return records_; }
  const Atomic<uint64_t>& written_count() const { return written_; }

 private:
  TraceRecord records_[kCapacity];
  Atomic<uint64_t> written_{0};
  Atomic<uint64_t> dropped_{0};
  Atomic<uint64_t> ns_[kCategoryCount];
  Atomic<uint64_t> events_[kCategoryCount];
};

}  // namespace rt::trace
