// SpscRing implementation; see ring.hpp for the ownership and memory-ordering argument.
#include "ring.hpp"

#include <string.h>

#include "runtime/support/utility.hpp"

namespace rt {

size_t SpscRing::writable(size_t wanted) {
  const uint32_t head = head_.load(MemoryOrder::kRelaxed);  // own index
  size_t free_bytes = kCapacity - (head - cached_tail_);
  if (free_bytes < wanted) {
    cached_tail_ = tail_.load(MemoryOrder::kAcquire);
    free_bytes = kCapacity - (head - cached_tail_);
  }
  return free_bytes;
}

size_t SpscRing::write_some(const void* data, size_t bytes) {
  const size_t count = min(bytes, writable(bytes));
  if (count == 0) return 0;
  const uint32_t head = head_.load(MemoryOrder::kRelaxed);
  const uint32_t position = head & kMask;
  const size_t first = min(count, static_cast<size_t>(kCapacity - position));
  memcpy(data_ + position, data, first);
  memcpy(data_, static_cast<const uint8_t*>(data) + first, count - first);
  head_.store(head + static_cast<uint32_t>(count), MemoryOrder::kRelease);
  return count;
}

Span<const uint8_t> SpscRing::readable_run() {
  const uint32_t tail = tail_.load(MemoryOrder::kRelaxed);  // own index
  if (cached_head_ == tail) cached_head_ = head_.load(MemoryOrder::kAcquire);
  const uint32_t available = cached_head_ - tail;
  const uint32_t position = tail & kMask;
  return Span<const uint8_t>(data_ + position, min(available, kCapacity - position));
}

void SpscRing::consume(size_t bytes) {
  tail_.store(tail_.load(MemoryOrder::kRelaxed) + static_cast<uint32_t>(bytes), MemoryOrder::kRelease);
}

size_t SpscRing::read_some(void* out, size_t bytes) {
  size_t copied = 0;
  while (copied < bytes) {
    const Span<const uint8_t> run = readable_run();
    if (run.empty()) break;
    const size_t count = min(run.size(), bytes - copied);
    memcpy(static_cast<uint8_t*>(out) + copied, run.data(), count);
    consume(count);
    copied += count;
  }
  return copied;
}

}  // namespace rt
